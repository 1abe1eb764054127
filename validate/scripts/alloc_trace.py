#!/usr/bin/python3
"""What the allocator does under a torchvision network run from Python: the evidence behind the
"fresh memory" findings for issue #16 (docs/results/2026-11-24-cpu-calibration.md).

Runs NETWORK in --processes fresh Python processes, each with alloc_trace.so preloaded (build it as
its header says), the step torch_truth.py times (torch_truth.user_step). In each process, after --warmup steps, every timed step records its time, the
fresh pages it faulted in (getrusage minor faults x page size) and every block of 64 KiB or more it
allocated and freed. Then it prints, per process: the fresh MB and ms of each step, how many large
blocks a step allocates and their MB, how many MB of them glibc mapped on their own, the share of the
rest (the heap's) that a step faults in afresh, and whether the process asked for the same sizes in
the same order as the first. Last, it replays the first process's requests
through a model of glibc's main arena and prints the fresh MB a step faults in once the model has
settled.

    cc -O2 -shared -fPIC -o /tmp/alloc_trace.so validate/scripts/alloc_trace.c -ldl -lpthread
    PYTHONPATH=build/python /usr/bin/python3 validate/scripts/alloc_trace.py --shim /tmp/alloc_trace.so efficientnet_b0 --threads 1

The model is the engine's (engine/host_allocator.hpp, MainArena: glibc 2.36 malloc/malloc.c, main
arena, blocks of 64 KiB and more), reached through the ridge module: run with build/python on
PYTHONPATH. Python's own small blocks, which can pin the top of the heap, are not in the model: it
starts empty, which is why it cannot say which process a run gets.

Not a CI test: it is slow and measures the machine.
"""
import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile

import torch_truth   # beside this script: the step a user's script runs, built once


def replay(requests, steps=8):
    """Fresh bytes per step of the same requests, step after step, from an empty heap: the engine's
    model of glibc's main arena (engine/host_allocator.hpp, through the ridge module), the one that
    times a calibrated CPU's inference forward."""
    from ridge import _ridge   # build/python on PYTHONPATH
    return _ridge.replay_host_requests(requests, steps)


def requests_of(trace_lines, step):
    """One step's requests as (op, block id, bytes); blocks still live at its end are freed then."""
    requests, live, next_id = [], {}, 0
    for line in trace_lines:
        s, op, nbytes, address, _ = line.split()
        if int(s) != step:
            continue
        if op == "a":
            live[address] = next_id
            requests.append(("a", next_id, int(nbytes)))
            next_id += 1
        elif address in live:
            requests.append(("f", live.pop(address), 0))
    requests += [("f", block, 0) for block in live.values()]
    return requests


def heap_share(steps, allocated, mapped):
    """The share of the bytes a step allocates from the heap (blocks of 64 KiB or more not mapped on
    their own) that it faults in afresh: (median fresh bytes - mapped) / (allocated - mapped). Mapped
    blocks are fresh every time; the rest is fresh as far as glibc trimmed the heap and grew it again."""
    heap = allocated - mapped
    if heap <= 0:
        return 0.0
    return (statistics.median(s["fresh_bytes"] for s in steps) - mapped) / heap


def child(args):
    import torch

    shim = ctypes.CDLL(args.shim)
    torch.set_num_threads(args.threads)
    run = torch_truth.user_step(args.network, args.mode, args.batch)
    for _ in range(args.warmup):
        run()
    steps = []
    for i in range(args.steps):
        shim.alloc_trace_mark(i)
        seconds, fresh, _ = torch_truth.timed(run)
        steps.append({"fresh_bytes": fresh, "seconds": seconds})
        shim.alloc_trace_mark(-1)
    if shim.alloc_trace_dump(args.child.encode()) != 0:
        raise OSError(f"cannot write {args.child}")
    print(json.dumps(steps))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("network", help="torchvision model name")
    ap.add_argument("--shim", required=True, help="alloc_trace.so, built from alloc_trace.c")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--mode", choices=["infer", "train"], default="infer")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--processes", type=int, default=5)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if min(args.threads, args.batch, args.steps, args.processes) < 1 or args.warmup < 0:
        ap.error("--threads, --batch, --steps and --processes must be at least 1, --warmup at least 0")
    args.shim = os.path.abspath(args.shim)
    if args.child:
        child(args)
        return 0
    if not os.path.exists(args.shim):
        ap.error(f"{args.shim} does not exist: build it as validate/scripts/alloc_trace.c says")

    first = None
    with tempfile.TemporaryDirectory() as scratch:
        for p in range(args.processes):
            trace = os.path.join(scratch, f"trace{p}.txt")
            cmd = [sys.executable, __file__, args.network, "--shim", args.shim, "--threads", str(args.threads),
                   "--batch", str(args.batch), "--mode", args.mode, "--warmup", str(args.warmup), "--steps",
                   str(args.steps), "--child", trace]
            done = subprocess.run(cmd, capture_output=True, text=True, env=os.environ | {"LD_PRELOAD": args.shim})
            if done.returncode != 0:
                raise RuntimeError(f"process {p + 1} failed:\n{done.stderr}")
            steps = json.loads(done.stdout.strip().splitlines()[-1])
            with open(trace) as f:
                lines = f.read().splitlines()
            requests = requests_of(lines, 1)
            sizes = [(op, n) for op, _, n in requests]
            first = first or (sizes, requests)
            allocated = [line.split() for line in lines if line.startswith("1 a")]
            total = sum(int(e[2]) for e in allocated)
            mapped = sum(int(e[2]) for e in allocated if e[4] != "0")
            print(f"process {p + 1}: fresh MB per step "
                  + " ".join(f"{s['fresh_bytes'] / 1e6:.0f}" for s in steps)
                  + ", ms " + " ".join(f"{s['seconds'] * 1e3:.0f}" for s in steps)
                  + f"; step 2: {len(allocated)} blocks >= 64 KiB, {total / 1e6:.0f} MB allocated, "
                  + f"{mapped / 1e6:.0f} MB of them mapped on their own, "
                  + f"heap share faulted {heap_share(steps, total, mapped):.2f}; "
                  + ("the same requests as process 1" if sizes == first[0] else "requests differ from process 1"),
                  flush=True)
    fresh = replay(first[1])
    print("glibc main-arena model, process 1's step-2 requests from an empty heap: fresh MB per step "
          + " ".join(f"{b / 1e6:.0f}" for b in fresh) + f" (settled: {statistics.median(fresh[-3:]) / 1e6:.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
