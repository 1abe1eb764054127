#!/usr/bin/env python3
"""Run engine_bench and check the speed goals its header states, with a generous ceiling.

engine_bench's goals: parse_simulate/<net> well under a millisecond, simulate/<net> under 1 ms per
network, sweep_10k (10,000 configurations through engine::Sweep, one core) under 0.1 s, serve_10min_100rps
(ten minutes of serving at 100 requests/s) under 1 s. On a shared
two-core CI machine the ceilings checked here are 5x the goals (5 ms, 5 ms, 0.5 s): loose enough for a
loaded machine, tight enough that an accidental quadratic loop or a per-call reparse fails. Writes

  OUT/engine_bench.json   Google Benchmark's JSON (every benchmark, real and CPU time)
  OUT/engine_bench.txt    one line per benchmark: name, CPU time, goal, ceiling, verdict

and exits 1 when a benchmark is above its ceiling. Run it through CTest: `ctest --test-dir build -L slow`.
"""
import argparse
import json
import pathlib
import subprocess
import sys

UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
# prefix: (goal, ceiling) in seconds per iteration
GOALS = {"parse_simulate/": (1e-3, 5e-3), "simulate/": (1e-3, 5e-3), "sweep_10k": (0.1, 0.5),
         "serve_10min_100rps": (1.0, 5.0)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", required=True, help="the engine_bench program")
    ap.add_argument("--out", required=True)
    ap.add_argument("--min-time", default="0.05", help="--benchmark_min_time per benchmark (s)")
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    json_path = out / "engine_bench.json"
    cmd = [args.bench, f"--benchmark_min_time={args.min_time}", "--benchmark_format=json",
           f"--benchmark_out={json_path}", "--benchmark_out_format=json"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        print(f"engine_bench failed with status {run.returncode}")
        return 1
    data = json.loads(json_path.read_text())
    lines, failures, checked = [], [], 0
    for b in data["benchmarks"]:
        name = b["name"]
        seconds = b["cpu_time"] * UNIT[b["time_unit"]]
        goal = next(((g, c) for prefix, (g, c) in GOALS.items() if name.startswith(prefix)), None)
        if goal is None:
            lines.append(f"{name:40s} {seconds * 1e3:10.3f} ms  (no goal)")
            continue
        checked += 1
        verdict = "ok" if seconds <= goal[0] else "goal missed, under the ceiling" if seconds <= goal[1] else "OVER CEILING"
        if seconds > goal[1]:
            failures.append(f"{name}: {seconds * 1e3:.3f} ms > ceiling {goal[1] * 1e3:.0f} ms")
        lines.append(f"{name:40s} {seconds * 1e3:10.3f} ms  goal {goal[0] * 1e3:g} ms, ceiling {goal[1] * 1e3:g} ms: {verdict}")
    if checked < 3:
        failures.append(f"only {checked} benchmarks with a goal ran; expected every zoo network and sweep_10k")
    (out / "engine_bench.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
