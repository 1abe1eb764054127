#!/usr/bin/python3
"""Ridge's uncalibrated GPU predictions against published throughputs.

Reads validate/published_throughputs.csv (one published single-GPU throughput a row: network, device,
precision, batch, training step or inference, the source's URL and table row), runs `simulate` on the
catalogue's .hw file for each row with no calibration, and prints a markdown table of published
against predicted samples/s with the error (predicted / published - 1), then the median absolute
error over all rows and per mode. Exits 0 unless simulate fails.

  validate/scripts/published_compare.py --simulate build/simulate --csv validate/published_throughputs.csv

Each run of simulate takes milliseconds; the whole table well under a second of CPU.
"""
import argparse
import csv
import json
import pathlib
import shlex
import statistics
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def predict(simulate, row, kernel_model="micro"):
    """Ridge's samples/s for one CSV row (training step or inference) under a GPU kernel model."""
    cmd = [simulate, row["network"], row["device_id"], "--batch", row["batch"], "--dtype", row["dtype"],
           "--format", "json", "--kernel-model", kernel_model] + shlex.split(row.get("extra_args") or "")
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    run = json.loads(done.stdout)["runs"][0]
    return run["throughput_train"] if row["mode"] == "train" else run["throughput_infer"], cmd


def short_source(source):
    """The source's document name and table/row, without the long pinned URL prefix."""
    url, _, where = source.partition(" ")
    parts = url.rstrip("/").split("/")
    if "github.com" in url and "blob" in parts:
        i = parts.index("blob")
        name = f"{parts[i - 2]}/{parts[i - 1]} {'/'.join(parts[i + 2:])}"
    else:
        name = url
    return f"[{name}]({url}) {where}".strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simulate", default=str(REPO / "build" / "simulate"), help="the simulate program")
    ap.add_argument("--csv", default=str(REPO / "validate" / "published_throughputs.csv"),
                    help="published throughputs (see the file's columns)")
    args = ap.parse_args()

    with open(args.csv, newline="") as f:
        rows = list(csv.DictReader(f))

    print("| network | GPU | dtype | batch | mode | extra args | published (samples/s) | Ridge (samples/s) | error | "
          "flat model | flat error | source |")
    print("|---|---|---|--:|---|---|--:|--:|--:|--:|--:|---|")
    errors = {"train": [], "infer": []}
    flat_errors = {"train": [], "infer": []}
    for row in rows:
        try:
            ridge, _ = predict(args.simulate, row)
            flat, _ = predict(args.simulate, row, "flat")
        except RuntimeError as e:
            print(e, file=sys.stderr)
            return 1
        published = float(row["published_samples_per_s"])
        err = ridge / published - 1.0
        flat_err = flat / published - 1.0
        errors[row["mode"]].append(abs(err))
        flat_errors[row["mode"]].append(abs(flat_err))
        print(f"| {row['network']} | {row['device_id']} | {row['dtype']} | {row['batch']} | {row['mode']} | "
              f"{row.get('extra_args') or ''} | {published:,.1f} | {ridge:,.1f} | {err * 100:+.1f} % | "
              f"{flat:,.1f} | {flat_err * 100:+.1f} % | {short_source(row['source'])} |")

    every = errors["train"] + errors["infer"]
    flat_every = flat_errors["train"] + flat_errors["infer"]
    print()
    print(f"Median absolute error, all {len(every)} rows: {statistics.median(every) * 100:.1f} % "
          f"(flat model {statistics.median(flat_every) * 100:.1f} %)")
    for mode in ("train", "infer"):
        if errors[mode]:
            print(f"Median absolute error, {mode} ({len(errors[mode])} rows, flat model "
                  f"{statistics.median(flat_errors[mode]) * 100:.1f} %): "
                  f"{statistics.median(errors[mode]) * 100:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
