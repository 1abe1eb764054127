#!/usr/bin/python3
"""Ridge's generation latency on one and several GPUs against published measurements.

Reads validate/generation_published.csv (one published latency a row: model, system, dtype, tensor and
pipeline parallel sizes, batch, prompt and generated tokens, the measured end-to-end latency in ms,
the split, the source; rows marked `excluded` say in their notes why they cannot be what the page
says they are, and are left out) and runs `simulate MODEL SYSTEM --prompt P --generate G --tensor-parallel T
--pipeline-parallel P --batch B --format json` for each. Every row is `predict`: no constant of Ridge
was fitted on them. Prints the rows grouped by (model, system), the error of each, and the median
absolute error per group and over every row, as docs/language-models.md shows (tests/docs/
measured_tables.py holds the page to this output).

  validate/scripts/generation_compare.py [--simulate build/simulate] [--csv validate/generation_published.csv]
"""
import argparse
import collections
import concurrent.futures
import csv
import json
import pathlib
import statistics
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]


def predicted_ms(simulate, row):
    cmd = [simulate, f"models/{row['model']}.net", f"hw/{row['system']}.hw", "--dtype", row["dtype"],
           "--prompt", row["prompt"], "--generate", row["generate"], "--batch", row["batch"],
           "--tensor-parallel", row["tensor_parallel"], "--pipeline-parallel", row["pipeline_parallel"], "--format", "json"]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["generation"][0]["latency_s"] * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simulate", default=str(REPO / "build" / "simulate"))
    ap.add_argument("--csv", default=str(REPO / "validate" / "generation_published.csv"))
    a = ap.parse_args()
    every = list(csv.DictReader(open(a.csv, newline="")))
    rows = [r for r in every if r["split"] == "predict"]
    excluded = collections.Counter(r["model"] for r in every if r["split"] == "excluded")
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        predicted = list(pool.map(lambda r: predicted_ms(a.simulate, r), rows))
    groups = collections.defaultdict(list)
    for row, ms in zip(rows, predicted):
        groups[(row["model"], row["system"])].append((row, ms))
    print("| model | system | batch | TP 1 | TP 2 | TP 4 | TP 8 |")
    print("|---|---|--:|--:|--:|--:|--:|")
    errors, per_group = [], {}
    for (model, system), cases in groups.items():
        by_batch = collections.defaultdict(dict)
        for row, ms in cases:
            error = ms / float(row["latency_ms"]) - 1
            errors.append(error)
            per_group.setdefault((model, system), []).append(error)
            by_batch[int(row["batch"])][int(row["tensor_parallel"])] = f"{float(row['latency_ms']):.0f} / {ms:.0f} ({error:+.0%})"
        for batch in sorted(by_batch):
            cells = [by_batch[batch].get(t, "-") for t in (1, 2, 4, 8)]
            print(f"| {model} | {system} | {batch} | " + " | ".join(cells) + " |")
    print()
    print("Each cell: measured / Ridge ms, end to end (128-token prompt, 20 tokens generated), and Ridge's error.")
    print()
    for (model, system), errs in per_group.items():
        print(f"- {model} on {system}: median absolute error {statistics.median(abs(e) for e in errs):.1%} ({len(errs)} rows)")
    print(f"- every row: median absolute error {statistics.median(abs(e) for e in errors):.1%} ({len(errors)} rows; "
          f"{sum(e < 0 for e in errors)} predicted faster than measured)")
    for model, n in excluded.items():
        print(f"- left out: {n} {model} rows (`excluded` in the CSV: faster than reading the weights allows)")


if __name__ == "__main__":
    main()
