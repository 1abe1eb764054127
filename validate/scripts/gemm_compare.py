#!/usr/bin/python3
"""Ridge's GEMM predictions against published measurements: the kernel model and the flat model.

Reads validate/gemm_published.csv (one published GEMM a row: device, dtype, m, n, k, batch, measured
TFLOP/s, whether the source timed the kernel alone or the host call around it, and whether the row is
one a constant may be fitted on (`fit`) or only predicted (`predict`)), simulates each row's GEMM
(validate/nets/gemm.net) with `--kernel-model micro` and `--kernel-model flat`, and prints the median
absolute error of each model per split, per source timing, per device and dtype.

What each row is compared with:
  - `kernel` rows (the source timed GPU kernels: Vidur's profiles, ml-engineering's MAMF): the
    kernel model's device time (`device_fwd_s`), and the flat model's time less its launch overhead;
  - `host` rows (the source timed one PyTorch call with CUDA events, dispatch included: NeuSight,
    LLMCompass): each model's time as simulate reports it, launch overhead included. Rows measured
    under 50 us are host-bound (NeuSight's floor is 24-53 us): they test the launch overhead, not the
    kernel, and are printed apart, never in the headline.

  validate/scripts/gemm_compare.py                 # the summary
  validate/scripts/gemm_compare.py --rows          # and every row
  validate/scripts/gemm_compare.py --fit           # what the fit rows imply for each family's constant

--fit prints, per (family, unit), the sustained fraction that would make the kernel model's fit rows
exact (the median over the family's compute-limited fit rows of sustained * predicted / measured), and
the kernel's fixed time the DRAM-bound fit rows imply (the median of measured less modelled work); the
figures in engine/kernels/gemm.cpp were taken from it. Prediction rows never enter it.
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


def simulate(simulate_bin, row, model):
    cmd = [simulate_bin, str(REPO / "validate" / "nets" / "gemm.net"), str(REPO / "hw" / f"{row['device_id']}.hw"),
           "--batch", row["batch"], "--dtype", row["dtype"], "--format", "json", "--kernel-model", model,
           "--set", f"m={row['m']}", "--set", f"n={row['n']}", "--set", f"k={row['k']}"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    doc = json.loads(done.stdout)
    layer = next(l for l in doc["layers"] if l["name"] == "gemm")
    run = doc["runs"][0]
    return layer, run


def predicted_seconds(row, layer, run, model):
    if row["timing"] == "kernel":
        if model == "micro" and layer.get("device_fwd_s") is not None:
            return layer["device_fwd_s"]
        return layer["time_fwd_s"] - run["launch_overhead_s"]
    return layer["time_fwd_s"]


def family_of(device_id):
    text = (REPO / "hw" / f"{device_id}.hw").read_text()
    for line in text.splitlines():
        parts = line.split("=")
        if parts[0].strip() == "arch.family":
            return parts[1].split()[0]
    return "?"


def median_pct(values):
    return f"{statistics.median(values) * 100:.1f} %" if values else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simulate", default=str(REPO / "build" / "simulate"), help="the simulate program")
    ap.add_argument("--csv", default=str(REPO / "validate" / "gemm_published.csv"))
    ap.add_argument("--rows", action="store_true", help="print every row")
    ap.add_argument("--fit", action="store_true", help="print the constants the fit rows imply")
    args = ap.parse_args()

    with open(args.csv, newline="") as f:
        rows = list(csv.DictReader(f))

    def one(row):
        out = {}
        for model in ("micro", "flat"):
            layer, run = simulate(args.simulate, row, model)
            out[model] = (predicted_seconds(row, layer, run, model), layer)
        return out

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(one, rows))

    groups = collections.defaultdict(lambda: {"micro": [], "flat": []})
    implied = collections.defaultdict(list)
    fixed_rows = []   # DRAM-bound fit rows: measured time less the modelled time without the fixed term
    if args.rows:
        print("| device | dtype | m | n | k | batch | timing | split | measured TFLOP/s | micro | flat | tile | waves | limit |")
        print("|---|---|--:|--:|--:|--:|---|---|--:|--:|--:|---|--:|---|")
    for row, res in zip(rows, results):
        flops = 2.0 * float(row["m"]) * float(row["n"]) * float(row["k"]) * float(row["batch"])
        measured_s = flops / (float(row["measured_tflops"]) * 1e12)
        errors = {m: res[m][0] / measured_s - 1.0 for m in ("micro", "flat")}
        host_bound = row["timing"] == "host" and measured_s < HOST_BOUND_S
        kind = "host-bound" if host_bound else row["split"]
        keys = [(kind, "all"), (kind, row["timing"]), (kind, f"{row['device_id']} {row['dtype']}")]
        if row["device_id"].startswith(("a100", "h100")):
            keys.append((kind, "A100 and H100"))   # the criterion: its rows, every dtype
        for key in keys:
            for m in ("micro", "flat"):
                groups[key][m].append(abs(errors[m]))
        layer = res["micro"][1]
        if row["split"] == "fit" and layer.get("limit_fwd") == "compute":
            implied[(family_of(row["device_id"]), row["dtype"] != "fp32")].append(res["micro"][0] / measured_s)
        if row["split"] == "fit" and layer.get("limit_fwd") == "dram":
            fixed_rows.append(measured_s - (res["micro"][0] - layer["fixed_fwd_s"]))
        if args.rows:
            print(f"| {row['device_id']} | {row['dtype']} | {row['m']} | {row['n']} | {row['k']} | {row['batch']} | "
                  f"{row['timing']} | {kind} | {float(row['measured_tflops']):.2f} | {errors['micro'] * 100:+.1f} % | "
                  f"{errors['flat'] * 100:+.1f} % | {layer.get('tile_fwd')} | {layer.get('waves_fwd')} | {layer.get('limit_fwd')} |")

    print("| rows | group | n | kernel model (micro) | flat model |")
    print("|---|---|--:|--:|--:|")
    for kind in ("fit", "predict", "host-bound"):
        keys = sorted(k for k in groups if k[0] == kind)
        keys.sort(key=lambda k: (k[1] != "all", k[1] != "A100 and H100", k[1] not in ("kernel", "host"), k[1]))
        for key in keys:
            g = groups[key]
            print(f"| {kind} | {key[1]} | {len(g['micro'])} | {median_pct(g['micro'])} | {median_pct(g['flat'])} |")

    if args.fit:
        print()
        print("Fit rows: the ratio predicted / measured of each compute-limited fit row, per (family, tensor cores).")
        print("The sustained fraction that makes them exact is today's times the median ratio.")
        for (family, matrix), ratios in sorted(implied.items()):
            print(f"  {family:8s} {'tensor' if matrix else 'simt':6s} rows {len(ratios)}  median ratio {statistics.median(ratios):.4f}  "
                  f"ratios {', '.join(f'{r:.3f}' for r in ratios)}")
        if fixed_rows:
            print(f"DRAM-bound fit rows ({len(fixed_rows)}): measured less modelled work, median "
                  f"{statistics.median(fixed_rows) * 1e6:.2f} us (the kernel's fixed time); "
                  f"each {', '.join(f'{x * 1e6:.2f}' for x in fixed_rows)} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
