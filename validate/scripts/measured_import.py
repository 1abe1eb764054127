#!/usr/bin/python3
"""Files one GPU run (validate/scripts/gpu_run.sh's $OUT folders) under validate/measured/, with the split.

  validate/scripts/measured_import.py DEST CALL_DIR [CALL_DIR ...] [--layers-from CALL_DIR]

DEST is the new folder (validate/measured/DEVICE-DATE: measured_compare.py finds hw/DEVICE.hw by its
name). Each CALL_DIR is one device call's $OUT, in the order they ran; what it writes:
  env.txt       the first call's (the machine, the driver, the software);
  clocks.csv    every call's nvidia-smi samples, with the call's number;
  kernels.csv   the kernel runs, each row with its `split` (below);
  networks.csv  the whole-network runs;
  dispatch.csv  the host's cost per eager op (the last call that measured it);
  layers/       calibrate's per-layer CUPTI times (--layers-from: the call whose calibration is kept).

The split is a rule on what a row measures, fixed before any comparison, so that every GPU's rows are
split alike: `fit` rows are those a constant may be fitted on (the copies: the DRAM rate a streaming
kernel reaches; bf16 square GEMMs: the tensor-core main loop; PyTorch's default attention without a
mask at head width 128: the fused attention's main loop), every other row is `predict`.
"""
import argparse
import csv
import pathlib
import shutil
import sys
import tarfile

CLOCK_FIELDS = ["call", "timestamp", "sm_mhz", "memory_mhz", "power_w", "temperature_c", "utilization_pct"]


def split_of(row):
    if row["group"] == "streaming" and row["op"] == "copy":
        return "fit"
    if row["group"] == "gemm" and row["dtype"] == "bf16" and row["extra"] == "square":
        return "fit"
    if row["group"] == "attention" and row["dtype"] == "bf16" and row["extra"] == "default;causal=0;heads=32":   # 4,096 wide: head width 128
        return "fit"
    return "predict"


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_rows(path, rows, fields):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def clock_rows(call, path):
    """nvidia-smi's CSV (units in every cell) as plain numbers."""
    rows = []
    with open(path, newline="") as f:
        reader = csv.reader(f)
        next(reader, None)
        for cells in reader:
            if len(cells) != 6:
                continue
            values = [cells[0].strip()] + [c.strip().split(" ")[0] for c in cells[1:]]   # "345 MHz" -> 345
            rows.append(dict(zip(CLOCK_FIELDS, [str(call)] + values)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dest", type=pathlib.Path)
    ap.add_argument("calls", type=pathlib.Path, nargs="+")
    ap.add_argument("--layers-from", type=pathlib.Path, help="the call whose calibrate.tgz gives layers/")
    args = ap.parse_args()
    args.dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(args.calls[0] / "env.txt", args.dest / "env.txt")

    clocks, kernels, networks = [], [], []
    for number, call in enumerate(args.calls, start=1):
        if (call / "smi.csv").exists():
            clocks += clock_rows(number, call / "smi.csv")
        if (call / "kernels.csv").exists():
            kernels += [{**row, "split": split_of(row)} for row in read_rows(call / "kernels.csv")]
        if (call / "networks.csv").exists():
            networks += read_rows(call / "networks.csv")
        if (call / "dispatch.csv").exists():
            shutil.copy(call / "dispatch.csv", args.dest / "dispatch.csv")
    write_rows(args.dest / "clocks.csv", clocks, CLOCK_FIELDS)
    if kernels:
        write_rows(args.dest / "kernels.csv", kernels, list(kernels[0].keys()))
    if networks:
        write_rows(args.dest / "networks.csv", networks, list(networks[0].keys()))

    if args.layers_from:
        layers = args.dest / "layers"
        layers.mkdir(exist_ok=True)
        with tarfile.open(args.layers_from / "calibrate.tgz") as tar:
            for member in tar.getmembers():
                name = pathlib.Path(member.name).name
                if member.isfile() and name.endswith(".csv"):   # DTYPE-NETWORK.csv: layer,pass,seconds
                    (layers / name).write_bytes(tar.extractfile(member).read())
    print(f"{args.dest}: {len(kernels)} kernel rows ({sum(r['split'] == 'fit' for r in kernels)} fit), "
          f"{len(networks)} network rows, {len(clocks)} clock samples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
