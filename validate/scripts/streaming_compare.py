#!/usr/bin/python3
"""Ridge's streaming-op predictions against published measurements: the kernel model and the flat model.

Reads validate/streaming_published.csv (one published kernel a row: device, op, rows x cols of fp32,
the measured time, the kernel PyTorch ran, the source's file and line; see
validate/streaming_published.md), simulates validate/nets/streaming.net once per (device, rows, cols)
with `--kernel-model micro` and `--kernel-model flat`, takes each op's own layer, and prints the median
absolute error of the forward time per group: every row, per device, per kernel (elementwise,
PyTorch's warp and block softmax, layer norm). No constant of Ridge was fitted on any of these rows:
every error is a prediction.

The sources timed one PyTorch call with CUDA events around it (`host`): each model's time as simulate
reports it, launch overhead included, is compared. Rows measured under 50 us would test the launch,
not the kernel, and are printed apart (none of NeuSight's test rows is).

  validate/scripts/streaming_compare.py            # the summary
  validate/scripts/streaming_compare.py --rows     # and every row
"""
import argparse
import collections
import concurrent.futures
import csv
import json
import pathlib
import statistics
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
HOST_BOUND_S = 50e-6
NET = REPO / "validate" / "nets" / "streaming.net"


def simulate(simulate_bin, device_id, rows, cols, model):
    """Each layer's forward time (s) of streaming.net at rows x cols, fp32, batch 1."""
    cmd = [simulate_bin, str(NET), str(REPO / "hw" / f"{device_id}.hw"), "--batch", "1", "--dtype", "fp32",
           "--format", "json", "--kernel-model", model, "--set", f"rows={rows}", "--set", f"cols={cols}"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    return {layer["name"]: layer["time_fwd_s"] for layer in json.loads(done.stdout)["layers"]}


def median_pct(values):
    return f"{statistics.median(values) * 100:.1f} %" if values else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simulate", default=str(REPO / "build" / "simulate"), help="the simulate program")
    ap.add_argument("--csv", default=str(REPO / "validate" / "streaming_published.csv"))
    ap.add_argument("--rows", action="store_true", help="print every row")
    args = ap.parse_args()

    with open(args.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    shapes = sorted({(r["device_id"], r["rows"], r["cols"]) for r in rows})

    def one(shape):
        return shape, {model: simulate(args.simulate, *shape, model) for model in ("micro", "flat")}

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        times = dict(pool.map(one, shapes))

    groups = collections.defaultdict(lambda: {"micro": [], "flat": []})
    if args.rows:
        print("| device | op | rows | cols | kernel | measured us | micro | flat |")
        print("|---|---|--:|--:|---|--:|--:|--:|")
    for row in rows:
        measured_s = float(row["measured_us"]) * 1e-6
        predicted = times[(row["device_id"], row["rows"], row["cols"])]
        errors = {m: predicted[m][row["op"]] / measured_s - 1.0 for m in ("micro", "flat")}
        kind = "host-bound" if measured_s < HOST_BOUND_S else row["split"]
        for key in [(kind, "all"), (kind, row["device_id"]), (kind, row["kernel"]),
                    (kind, f"{row['device_id']} {row['kernel']}")]:
            for m in ("micro", "flat"):
                groups[key][m].append(abs(errors[m]))
        if args.rows:
            print(f"| {row['device_id']} | {row['op']} | {row['rows']} | {row['cols']} | {row['kernel']} | "
                  f"{float(row['measured_us']):.1f} | {errors['micro'] * 100:+.1f} % | {errors['flat'] * 100:+.1f} % |")

    print("| rows | group | n | kernel model (micro) | flat model |")
    print("|---|---|--:|--:|--:|")
    for kind in ("fit", "predict", "host-bound"):
        keys = sorted(k for k in groups if k[0] == kind)
        keys.sort(key=lambda k: (k[1] != "all", " " in k[1], k[1]))
        for key in keys:
            g = groups[key]
            print(f"| {kind} | {key[1]} | {len(g['micro'])} | {median_pct(g['micro'])} | {median_pct(g['flat'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
