#!/usr/bin/python3
"""Ridge's serving simulator against published serving measurements.

Reads validate/serving_published.csv (one published figure a row: framework, model, system, dtype,
weight-only quantisation (`weights`: int8, or empty), tensor parallel size, the load as `requests`
requests of `prompt` and `output` tokens all arriving at once (1: a request alone), the scheduler, the metric and its measured value, the split, the source;
rows marked `excluded` say in their notes why they cannot be replayed, and are left out). For each
row it writes the load as a trace and runs

  simulate MODEL SYSTEM --dtype D [--weights W] --tensor-parallel T --serve --requests TRACE.csv
           --batching B --max-num-seqs N --format json

and reads the metric from the `serving` row, once as eager PyTorch runs it and once with `--runtime` the
row's stack (the CSV's `runtime`: runtimes/NAME.rt). Every row is `predict`: no constant of Ridge was fitted
on them. Prints each row's error and the median absolute error, per stack and over every row, as
docs/language-models.md shows (tests/docs/measured_tables.py holds the page to this output).

  validate/scripts/serving_compare.py [--simulate build/simulate] [--csv validate/serving_published.csv]
"""
import argparse
import concurrent.futures
import csv
import json
import os
import pathlib
import statistics
import subprocess
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[2]


def predicted(simulate, row, folder, runtime=None):
    # One file per run: runs go in parallel, and two rows may share a load.
    handle, name = tempfile.mkstemp(suffix=".csv", dir=folder)
    os.close(handle)
    trace = pathlib.Path(name)
    trace.write_text("arrival_s,prompt_tokens,output_tokens\n" + f"0,{row['prompt']},{row['output']}\n" * int(row["requests"]))
    cmd = [simulate, f"models/{row['model']}.net", f"hw/{row['system']}.hw", "--dtype", row["dtype"]] + \
          (["--weights", row["weights"]] if row["weights"] else []) + [
           "--tensor-parallel", row["tensor_parallel"], "--serve", "--requests", str(trace), "--batching", row["batching"],
           "--max-num-seqs", row["max_num_seqs"], "--format", "json"] + (["--runtime", runtime] if runtime else [])
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["serving"][0][row["metric"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simulate", default=str(REPO / "build" / "simulate"))
    ap.add_argument("--csv", default=str(REPO / "validate" / "serving_published.csv"))
    a = ap.parse_args()
    rows = [r for r in csv.DictReader(open(a.csv, newline="")) if r["split"] == "predict"]
    with tempfile.TemporaryDirectory() as folder, concurrent.futures.ThreadPoolExecutor(4) as pool:
        values = list(pool.map(lambda r: predicted(a.simulate, r, folder), rows))
        stacked = list(pool.map(lambda r: predicted(a.simulate, r, folder, r["runtime"]), rows))
    units = {"output_tokens_per_s": ("tokens/s", 1), "ttft_mean_s": ("ms", 1e3), "tpot_p50_s": ("ms", 1e3), "e2e_mean_s": ("ms", 1e3)}
    names = {"output_tokens_per_s": "output throughput", "ttft_mean_s": "TTFT, mean", "tpot_p50_s": "TPOT, median",
             "e2e_mean_s": "end to end, mean"}
    print("| stack | model | system | dtype | TP | requests at once | in / out | metric | measured | Ridge, eager | error | "
          "Ridge, `--runtime` | error |")
    print("|---|---|---|---|--:|--:|--:|---|--:|--:|--:|--:|--:|")
    per_stack = {}   # framework -> (eager errors, stacked errors), in the CSV's order
    shown = lambda x: f"{x:,.0f}" if x >= 100 else f"{x:.1f}"
    for r, v, w in zip(rows, values, stacked):
        unit, scale = units[r["metric"]]
        measured = float(r["measured"])
        error, stacked_error = v / measured - 1, w / measured - 1
        eager_errs, stack_errs = per_stack.setdefault(r["framework"], ([], []))
        eager_errs.append(abs(error))
        stack_errs.append(abs(stacked_error))
        dtype = r["dtype"] + (f", {r['weights']} weights" if r["weights"] else "")
        print(f"| {r['framework']} | {r['model']} | {r['system']} | {dtype} | {r['tensor_parallel']} | {r['requests']} | "
              f"{r['prompt']} / {r['output']} | {names[r['metric']]} ({unit}) | {shown(measured * scale)} | {shown(v * scale)} | "
              f"{error:+.0%} | {shown(w * scale)} ({r['runtime']}) | {stacked_error:+.0%} |")
    left_out = sum(1 for r in csv.DictReader(open(a.csv, newline="")) if r["split"] == "excluded")
    print()
    for framework, (eager_errs, stack_errs) in per_stack.items():
        print(f"- {framework}: median absolute error {statistics.median(eager_errs):.1%} eager, "
              f"{statistics.median(stack_errs):.1%} under its stack ({len(stack_errs)} rows)")
    print()
    errors = [e for eager_errs, _ in per_stack.values() for e in eager_errs]
    stacked_errors = [e for _, stack_errs in per_stack.values() for e in stack_errs]
    print(f"Median absolute error {statistics.median(errors):.1%} as eager PyTorch runs them, {statistics.median(stacked_errors):.1%} "
          f"under each row's own stack (`runtimes/`), over {len(errors)} rows, every one predicted (no constant saw them); "
          f"{left_out} rows left out (`excluded` in the CSV, each with its reason).")

if __name__ == "__main__":
    main()
