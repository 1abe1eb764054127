#!/usr/bin/python3
"""The cost of one ridge.simulate call from Python, for every zoo network (goal: under 1 ms).

    PYTHONPATH=build/python /usr/bin/python3 tests/bench/python_bench.py [--out DIR] [--device a100-sxm4-40gb]

Times, per network, the first call (which parses and elaborates the .net) and then the median of
repeated calls, each a whole `ridge.simulate(NAME, DEVICE, batch=64)` as a notebook writes it: the
name resolved, the cached network checked against its file, the engine run with the GIL released,
the result object made (its tables are built when first read, and are timed apart: `.totals`).
Writes OUT/python_bench.txt; marks a network whose repeated call's median is over the 1 ms goal, and
exits 1 when one is over 5 ms, the ceiling engine_bench_goals also allows a loaded CI machine.
"""
import argparse
import os
import pathlib
import statistics
import sys
import time

import ridge

GOAL_S = 1e-3
CEILING_S = 5e-3


def median_seconds(f, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="build/bench")
    ap.add_argument("--device", default="a100-sxm4-40gb")
    ap.add_argument("--repeats", type=int, default=51)
    args = ap.parse_args()
    source = pathlib.Path(__file__).resolve().parents[2]
    names = sorted(p.stem for p in (source / "models").glob("*.net"))
    lines, over = [], []
    for name in names:
        t = time.perf_counter()
        first = ridge.simulate(name, args.device, batch=64)
        first_s = time.perf_counter() - t
        layers = ridge.network(name).layer_count
        call_s = median_seconds(lambda: ridge.simulate(name, args.device, batch=64), args.repeats)
        totals_s = median_seconds(lambda: ridge.simulate(name, args.device, batch=64).totals, args.repeats)
        verdict = "ok" if call_s < GOAL_S else "over goal" if call_s < CEILING_S else "OVER CEILING"
        if call_s >= CEILING_S:
            over.append(name)
        lines.append(f"{name:22s} {layers:6d} layers  first {first_s * 1e3:8.2f} ms  call {call_s * 1e3:6.3f} ms"
                     f"  call+totals {totals_s * 1e3:6.3f} ms  {verdict}")
        assert first.total("params") > 0
    calls = sorted(float(l.split("call ")[1].split()[0]) for l in lines)
    lines.append(f"median over {len(names)} networks: {statistics.median(calls):.3f} ms per call; "
                 f"slowest {calls[-1]:.3f} ms (goal {GOAL_S * 1e3:.0f} ms)")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "python_bench.txt").write_text(text)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
