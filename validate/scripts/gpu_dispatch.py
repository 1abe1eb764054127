#!/usr/bin/env python3
"""What eager PyTorch costs the host per op on a GPU machine (issue #40; the eager runtime of #35).

A network whose kernels are short runs at the speed the host issues them, not the GPU's: BERT-base's
training step at batch 32 keeps an H200 busy 9 ms of 35. This times the host's side directly, with
kernels far too small to matter (1-element tensors), so the wall time per op is the dispatch cost:
  add                 y = a + b, no autograd
  add_grad            the same with autograd recording the op
  linear_grad         F.linear(x, w, b) with autograd (three ops' bookkeeping)
  backward_per_node   one backward over a chain of 100 recorded adds, per node
  adamw_per_tensor    AdamW.step() (PyTorch's default, foreach) per parameter tensor, 200 tensors
  sgd_per_tensor      SGD with momentum .step() per parameter tensor, 200 tensors
  module_relu         an nn.ReLU module called under inference_mode: the nn.Module call's own cost
                      over `add`'s (the second H100's batch-1 rows spent ~20 us of host per kernel)
  module_conv_bn_relu per module of an eval-mode Conv2d(1, 1, 1) -> BatchNorm2d -> ReLU Sequential
                      under inference_mode, a torchvision CNN's commonest triple
One row per case: case,dtype,us_per_op,p10,p90,repeats (repeats of a 1,000-op loop; spread over them).

    python3 validate/scripts/gpu_dispatch.py --out dispatch.csv
"""
import argparse
import csv
import time

import torch
import torch.nn.functional as F


def per_op(loop, ops, repeats=15):
    loop()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        loop()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t0) / ops * 1e6)
    samples.sort()
    q = lambda p: samples[min(len(samples) - 1, int(p * (len(samples) - 1) + 0.5))]
    return q(0.5), q(0.1), q(0.9), len(samples)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    dev = "cuda"
    rows = []
    for dtype_name, dtype in (("bf16", torch.bfloat16), ("fp32", torch.float32)):
        a = torch.ones(1, device=dev, dtype=dtype)
        b = torch.ones(1, device=dev, dtype=dtype)
        ag = a.clone().requires_grad_()
        n = 1000

        def add():
            with torch.no_grad():
                for _ in range(n):
                    a + b

        def add_grad():
            for _ in range(n):
                ag + b

        x = torch.ones(1, 8, device=dev, dtype=dtype)
        w = torch.ones(8, 8, device=dev, dtype=dtype, requires_grad=True)
        bias = torch.ones(8, device=dev, dtype=dtype, requires_grad=True)

        def linear_grad():
            for _ in range(n):
                F.linear(x, w, bias)

        def backward_chain():
            for _ in range(10):
                y = ag
                for _ in range(100):
                    y = y + b
                y.sum().backward()

        params = [torch.nn.Parameter(torch.ones(8, device=dev, dtype=dtype)) for _ in range(200)]
        for p in params:
            p.grad = torch.ones_like(p)
        adamw = torch.optim.AdamW(params, lr=1e-4)
        sgd = torch.optim.SGD(params, lr=1e-2, momentum=0.9)

        def adamw_steps():
            for _ in range(5):
                adamw.step()

        def sgd_steps():
            for _ in range(5):
                sgd.step()

        relu = torch.nn.ReLU()
        image = torch.ones(1, 1, 1, 1, device=dev, dtype=dtype)
        triple = torch.nn.Sequential(torch.nn.Conv2d(1, 1, 1), torch.nn.BatchNorm2d(1), torch.nn.ReLU()).to(dev, dtype).eval()

        def module_relu():
            with torch.inference_mode():
                for _ in range(n):
                    relu(a)

        def module_triple():
            with torch.inference_mode():
                for _ in range(n // 3):
                    triple(image)

        for case, loop, ops in (("add", add, n), ("add_grad", add_grad, n), ("linear_grad", linear_grad, n),
                                ("backward_per_node", backward_chain, 1000), ("adamw_per_tensor", adamw_steps, 1000),
                                ("sgd_per_tensor", sgd_steps, 1000), ("module_relu", module_relu, n),
                                ("module_conv_bn_relu", module_triple, 3 * (n // 3))):
            med, p10, p90, reps = per_op(loop, ops)
            rows.append(dict(case=case, dtype=dtype_name, us_per_op=f"{med:.3f}", p10=f"{p10:.3f}", p90=f"{p90:.3f}", repeats=reps))
            print(f"{case} {dtype_name}: {med:.2f} us per op (p10 {p10:.2f}, p90 {p90:.2f})", flush=True)
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
