#!/usr/bin/python3
"""The eager host (engine/host_dispatch.hpp) against the wall time of our own GPU runs: its fit, and
its predictions on the runs it was not fitted on.

Eager PyTorch issues a network's kernels from Python one op at a time. Where the host issues them
slower than the GPU runs them (small kernels, a small batch, a training step's autograd), the step's
wall time exceeds the GPU's busy time. runtimes/pytorch-python.rt gives the host's time per op,
`host.forward_op` and `host.backward_op`; this script fits them and checks them.

The split (a constant may be fitted on FIT_FOLDERS' rows and on no other):
  fit        validate/measured/h200-sxm-2026-11-26 and h100-sxm5-2026-11-26, the first two runs
             (ResNet-50, BERT-base, GPT-2, a 2B Llama; 48 network cases). Only their clearly
             host-bound cases (wall time over twice the busy time) enter the fit;
  predicted  every other folder of validate/measured/ (the 2026-11-27 H100 runs: 20 networks, 80
             cases, on other machines, so other host CPUs).

The fit, with L a case's layers after the input (each a call from Python) and B its layers with a
backward (simulate's per-layer rows; a layer with a backward time has one):
  host.forward_op  = median over the fit's host-bound inference cases of  wall / L
  host.backward_op = median over the fit's host-bound training cases of   (forward+backward - L x forward_op) / B
(where the host is the bound, the GPU's time hides under it: wall time is host time). The
optimizer's time is left out (its own column in networks.csv; the model times it on the GPU).

Then every case is simulated twice on the folder's catalogue .hw with the kernel model: as the GPU
alone (the device's launch overhead) and under the eager host (--runtime pytorch-python), each as
gpu_networks.py ran it (a training step with torch.optim's foreach update, bf16 weights without an
fp32 master copy). Both are compared with the wall time; the GPU alone also with
the busy time. The median absolute errors are printed for the fit and the predicted cases, the eager
host's also against each of the three runs alone (run 1 / 2 / 3: the spread a single run would give).

  validate/scripts/host_compare.py               # the summary (docs/gpu.md's)
  validate/scripts/host_compare.py --rows        # every case
  validate/scripts/host_compare.py --fit         # what the fit cases imply for the two figures

Each case is two simulate runs of milliseconds; the whole script a few seconds.
"""
import argparse
import concurrent.futures
import csv
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from measured_compare import REPO, catalogue_hw, measured_cases, median_abs, network_command, pct, run_json  # noqa: E402

FIT_FOLDERS = {"h200-sxm-2026-11-26", "h100-sxm5-2026-11-26"}
HOST_BOUND = 2.0   # a fit case's wall time over its busy time, at least


def cases():
    """Every network case of every measured folder: (folder, row, wall ms, busy ms, forward+backward ms,
    {run: that run's wall ms})."""
    fields = ["network", "mode", "dtype", "batch", "seq_len"]
    out = []
    for folder in sorted((REPO / "validate" / "measured").iterdir()):
        path = folder / "networks.csv"
        if not path.exists():
            continue
        rows = list(csv.DictReader(open(path)))
        wall = measured_cases(rows, fields, "median_ms")
        busy = measured_cases(rows, fields, "busy_ms")
        fb = measured_cases([r for r in rows if r["forward_backward_ms"]], fields, "forward_backward_ms")
        by_run = {}
        for r in rows:
            by_run.setdefault(tuple(r[f] for f in fields), {})[r["run"]] = float(r["median_ms"])
        for key, (row, wall_ms, _) in sorted(wall.items()):
            out.append((folder, row, wall_ms, busy[key][1], fb[key][1] if key in fb else None, by_run[key]))
    return out


def command(simulate, folder, row, eager):
    """simulate's command for a case, as gpu_networks.py ran it: the GPU alone, or under the eager host."""
    return network_command(argparse.Namespace(simulate=simulate, as_run=True), row, catalogue_hw(folder), "micro", host=eager)


def layer_counts(doc):
    layers = doc["layers"][1:]   # the input is no call
    return len(layers), sum(1 for l in layers if l["time_bwd_s"] > 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simulate", default=str(REPO / "build" / "simulate"))
    ap.add_argument("--rows", action="store_true", help="print every case")
    ap.add_argument("--fit", action="store_true", help="print what the fit cases imply for host.forward_op and host.backward_op")
    ap.add_argument("--jobs", type=int, default=4)
    args = ap.parse_args()
    all_cases = cases()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = [(c, pool.submit(run_json, command(args.simulate, c[0], c[1], False)),
                        pool.submit(run_json, command(args.simulate, c[0], c[1], True))) for c in all_cases]
            results = [(c, gpu.result(), eager.result()) for c, gpu, eager in futures]
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1

    if args.fit:
        forward, backward = [], []
        for (folder, row, wall, busy, _, _), gpu, _ in results:
            if folder.name in FIT_FOLDERS and row["mode"] == "inference" and wall > HOST_BOUND * busy:
                forward.append(wall / layer_counts(gpu)[0])
        forward_op = statistics.median(forward) * 1e-3
        for (folder, row, wall, busy, fb, _), gpu, _ in results:
            if folder.name in FIT_FOLDERS and row["mode"] == "train" and wall > HOST_BOUND * busy and fb:
                layers, with_backward = layer_counts(gpu)
                backward.append((fb * 1e-3 - layers * forward_op) / with_backward)
        print(f"host.forward_op  = {forward_op * 1e6:.1f} us  (median of {len(forward)} host-bound inference cases: "
              + ", ".join(f"{x * 1e3:.1f}" for x in sorted(forward)) + " us)")
        print(f"host.backward_op = {statistics.median(backward) * 1e6:.1f} us  (median of {len(backward)} host-bound training cases: "
              + ", ".join(f"{x * 1e6:.1f}" for x in sorted(backward)) + " us)")
        return 0

    errors = {}
    if args.rows:
        print("| run | network | mode | dtype | batch | wall ms | GPU busy ms | GPU alone ms | vs busy | vs wall | eager host ms | vs wall |")
        print("|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for (folder, row, wall, busy, _, runs), gpu, eager in results:
        time = lambda doc: (doc["runs"][0]["time_train_step_s"] if row["mode"] == "train" else doc["runs"][0]["time_fwd_s"]) * 1e3
        alone, host = time(gpu), time(eager)
        split = "fit" if folder.name in FIT_FOLDERS else "predicted"
        for name, value in (("alone vs busy", alone / busy - 1), ("alone vs wall", alone / wall - 1), ("host vs wall", host / wall - 1)):
            errors.setdefault((split, row["mode"], name), []).append(value)
            errors.setdefault((split, "all", name), []).append(value)
        for run, run_wall in runs.items():   # each run on its own: the spread of the medians
            for mode in (row["mode"], "all"):
                errors.setdefault((split, mode, "host vs run"), {}).setdefault(run, []).append(host / run_wall - 1)
        if args.rows:
            print(f"| {folder.name} | {row['network']} | {row['mode']} | {row['dtype']} | {row['batch']} | {wall:.2f} | {busy:.2f} | "
                  f"{alone:.2f} | {pct(alone / busy - 1)} | {pct(alone / wall - 1)} | {host:.2f} | {pct(host / wall - 1)} |")
    if args.rows:
        print()
    print("| cases | mode | n | GPU alone vs busy | GPU alone vs wall | **eager host vs wall** | eager host, each run alone | worst, eager host |")
    print("|---|---|--:|--:|--:|--:|--:|--:|")
    for split in ("fit", "predicted"):
        for mode in ("inference", "train", "all"):
            e = errors.get((split, mode, "host vs wall"), [])
            if not e:
                continue
            worst = max(e, key=abs)
            per_run = " / ".join(median_abs(v) for _, v in sorted(errors[(split, mode, "host vs run")].items()))
            print(f"| {split} | {mode} | {len(e)} | {median_abs(errors[(split, mode, 'alone vs busy')])} | "
                  f"{median_abs(errors[(split, mode, 'alone vs wall')])} | **{median_abs(e)}** | {per_run} | {pct(worst)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
