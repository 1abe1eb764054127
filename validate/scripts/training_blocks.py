#!/usr/bin/env python3
"""Fresh pages a training step's single layers fault in, in eager PyTorch on a CPU (issue #37).

For each layer below, at batch 16, runs its forward and backward three times and prints, for the
last run, the time and the bytes of minor page faults (getrusage's ru_minflt x 4 KiB) of each pass,
beside the sizes of its input and output. A block above glibc's mmap threshold is mapped and
faulted in afresh each time, so the faulted bytes count the large blocks a pass allocates: what
engine::eager_cpu_training_mapped_bytes charges (docs/results/2026-11-28-training-blocks.md).

  python3 validate/scripts/training_blocks.py --threads 2

Takes about a minute on two cores.
"""
import argparse
import resource
import time

import torch
import torch.nn as nn


def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt * 4096


def probe(name, module, shape, input_gradient=True):
    x = torch.randn(shape, requires_grad=input_gradient)
    for _ in range(3):
        f0, t0 = faults(), time.perf_counter()
        y = module(x)
        forward_s, forward_b = time.perf_counter() - t0, faults() - f0
        g = torch.randn_like(y)
        f0, t0 = faults(), time.perf_counter()
        y.backward(g)
        backward_s, backward_b = time.perf_counter() - t0, faults() - f0
        x.grad = None
        for p in module.parameters():
            p.grad = None
        out_mb = y.numel() * y.element_size() / 1e6
        del y, g
    in_mb = x.numel() * x.element_size() / 1e6
    print(f"{name:32s} in {in_mb:6.0f} MB out {out_mb:6.0f} MB | forward {forward_s * 1e3:7.1f} ms "
          f"faults {forward_b / 1e6:6.0f} MB | backward {backward_s * 1e3:7.1f} ms faults {backward_b / 1e6:6.0f} MB")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {args.threads} threads, batch 16, fp32")
    probe("conv 3x3 64->64 on 224", nn.Conv2d(64, 64, 3, padding=1), (16, 64, 224, 224))
    probe("conv 3x3 3->64 on 224 (first)", nn.Conv2d(3, 64, 3, padding=1), (16, 3, 224, 224), input_gradient=False)
    probe("conv 3x3 64->128 on 112", nn.Conv2d(64, 128, 3, padding=1), (16, 64, 112, 112))
    probe("conv 3x3 128->64 on 112", nn.Conv2d(128, 64, 3, padding=1), (16, 128, 112, 112))
    probe("conv 3x3 64->128 stride 2 on 224", nn.Conv2d(64, 128, 3, stride=2, padding=1), (16, 64, 224, 224))
    probe("conv 1x1 128->128 on 112", nn.Conv2d(128, 128, 1), (16, 128, 112, 112))
    probe("depthwise 3x3 96 on 112", nn.Conv2d(96, 96, 3, padding=1, groups=96), (16, 96, 112, 112))
    probe("grouped 3x3 48, 6 groups, on 112", nn.Conv2d(48, 48, 3, padding=1, groups=6), (16, 48, 112, 112))
    probe("maxpool 2x2 64 on 224", nn.MaxPool2d(2, 2), (16, 64, 224, 224))
    probe("relu 64 on 224", nn.ReLU(), (16, 64, 224, 224))
    probe("batchnorm 64 on 224", nn.BatchNorm2d(64), (16, 64, 224, 224))
    probe("linear 25088->4096", nn.Linear(25088, 4096), (16, 25088))


if __name__ == "__main__":
    main()
