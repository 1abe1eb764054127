#!/usr/bin/python3
"""The blocks one eager LibTorch op allocates on a CPU: the evidence behind the requests
engine/host_allocator.cpp replays (issue #37, docs/results/2026-11-27-fault-volume.md).

Runs each op below twice to warm it up, then once under alloc_trace.so (preloaded, built as
alloc_trace.c's header says) and prints, per op, every block of 64 KiB or more it allocated ('a')
and freed ('f'), in order, in MiB, with 1 where glibc mapped the block on its own. With --backward
it runs each op with a gradient and prints the forward's blocks and the backward's.

    cc -O2 -shared -fPIC -o /tmp/alloc_trace.so validate/scripts/alloc_trace.c -ldl -lpthread
    LD_PRELOAD=/tmp/alloc_trace.so /usr/bin/python3 validate/scripts/alloc_ops.py --threads 2 --batch 16

Not a CI test: it measures the machine's LibTorch.
"""
import argparse
import collections
import ctypes
import math
import os
import tempfile


def ops(batch):
    import torch
    nn = torch.nn
    bn = nn.BatchNorm2d(64)
    return {
        "conv 3x3, 64 to 128 channels, 56x56": (nn.Conv2d(64, 128, 3, padding=1, bias=False), (batch, 64, 56, 56)),
        "conv 1x1, 64 to 128 channels, 56x56": (nn.Conv2d(64, 128, 1, bias=False), (batch, 64, 56, 56)),
        "conv 1x1 stride 2, 64 to 128, 56x56": (nn.Conv2d(64, 128, 1, stride=2, bias=False), (batch, 64, 56, 56)),
        "depthwise 3x3, 96 channels, 56x56": (nn.Conv2d(96, 96, 3, padding=1, groups=96, bias=False), (batch, 96, 56, 56)),
        "grouped 3x3, 96 channels, 12 groups": (nn.Conv2d(96, 96, 3, padding=1, groups=12, bias=False), (batch, 96, 56, 56)),
        "batch norm, 64 channels, 56x56": (bn, (batch, 64, 56, 56)),
        "max pool 3x3 stride 2, 64 x 112x112": (nn.MaxPool2d(3, 2, 1), (batch, 64, 112, 112)),
        "linear 4096 to 4096": (nn.Linear(4096, 4096), (batch * 64, 4096)),
        "relu in place after a batch norm": (lambda x: nn.functional.relu(bn(x), inplace=True), (batch, 64, 56, 56)),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--backward", action="store_true", help="also the backward of each op")
    ap.add_argument("--shim", default="/tmp/alloc_trace.so", help="alloc_trace.so, also preloaded (LD_PRELOAD)")
    args = ap.parse_args()
    if args.shim not in os.environ.get("LD_PRELOAD", ""):
        ap.error(f"run with LD_PRELOAD={args.shim}: the shim sees only a process it was preloaded into")
    import torch

    shim = ctypes.CDLL(args.shim)
    torch.set_num_threads(args.threads)
    table = ops(args.batch)
    for i, (name, (op, shape)) in enumerate(table.items()):
        x = torch.randn(*shape, requires_grad=args.backward)
        if args.backward:
            for _ in range(2):
                op(x).backward(torch.ones(op(x).shape))
            grad = torch.ones(op(x).shape)
            shim.alloc_trace_mark(2 * i)
            y = op(x)
            shim.alloc_trace_mark(2 * i + 1)
            y.backward(grad)
            del y
        else:
            with torch.no_grad():
                op(x)
                op(x)
                shim.alloc_trace_mark(2 * i)
                y = op(x)
                del y
        shim.alloc_trace_mark(-1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ops.trace")
        if shim.alloc_trace_dump(path.encode()) != 0:
            raise OSError(f"cannot write {path}")
        events = collections.defaultdict(list)
        with open(path) as f:
            for line in f:
                step, op, nbytes, _, mapped = line.split()
                events[int(step)].append(f"{op} {int(nbytes) / 2**20:.2f}{' mapped' if mapped == '1' else ''}" if op == "a" else "f")
    print(f"torch {torch.__version__}, {args.threads} threads, batch {args.batch}")
    for i, (name, (_, shape)) in enumerate(table.items()):
        print(f"{name} (input {math.prod(shape) * 4 / 2**20:.2f} MiB)")
        print("  forward:  " + ", ".join(events[2 * i]))
        if args.backward:
            print("  backward: " + ", ".join(events[2 * i + 1]))


if __name__ == "__main__":
    main()
