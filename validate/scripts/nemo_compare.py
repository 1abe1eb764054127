#!/usr/bin/python3
"""Megatron-Core training throughput as NVIDIA's NeMo published it against Ridge, eager and under
runtimes/megatron-core.rt.

Reads validate/nemo_published.csv: NeMo 24.07's FP8 pre-training table on DGX H100 (Transformer
Engine's fp8, Megatron-Core 0.8), each row's GPUs, global and micro batch, sequence length and
tensor, pipeline, context and virtual-pipeline sizes as the table gives them; rows marked `excluded`
say why they cannot be simulated. Each `predict` row is simulated as

  simulate models/NET.net hw/superpod-h100.hw --dtype fp8 --optimizer adam --seq-len S
      --tensor-parallel T [--sequence-parallel] --pipeline-parallel P [--interleave V] --data-parallel D
      --global-batch G --micro-batch M --overlap --zero 1 [--runtime megatron-core]

(--zero 1: Megatron's distributed optimizer, NeMo's default; --overlap: its overlapped gradient
reduce), once as eager PyTorch runs the .net (every tensor at fp8, the .net's attention) and once under
the stack (Transformer Engine's fused attention and fp8 casts, 16-bit activations: `quant.*`).
Prints tokens per second per GPU, published and predicted, the error (predicted / published - 1) and
the median absolute error of each. Every row is a prediction: no constant was fitted on them.

  validate/scripts/nemo_compare.py [--simulate build/simulate] [--csv validate/nemo_published.csv]
"""
import argparse
import csv
import json
import pathlib
import statistics
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def tokens_per_gpu(simulate_bin, row, runtime):
    gpus, tp, pp, vp = (int(row[k]) for k in ("gpus", "tp", "pp", "vp"))
    gbs, mbs, seq = int(row["global_batch"]), int(row["micro_batch"]), int(row["seq_len"])
    cmd = [simulate_bin, str(REPO / "models" / (row["network"] + ".net")), str(REPO / "hw" / (row["device_id"] + ".hw")),
           "--dtype", "fp8", "--optimizer", "adam", "--seq-len", str(seq), "--tensor-parallel", str(tp),
           "--pipeline-parallel", str(pp), "--data-parallel", str(gpus // (tp * pp)), "--global-batch", str(gbs),
           "--micro-batch", str(mbs), "--overlap", "--zero", "1", "--format", "json"]
    if tp > 1:
        cmd.append("--sequence-parallel")
    if vp > 1:
        cmd += ["--interleave", str(vp)]
    if runtime:
        cmd += ["--runtime", runtime]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"simulate failed on {row['model']}: {done.stderr.strip()}")
    strategy = json.loads(done.stdout)["parallel"]["strategies"][0]
    return gbs * seq / strategy["step_s"] / gpus


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simulate", default=str(REPO / "build" / "simulate"))
    ap.add_argument("--csv", default=str(REPO / "validate" / "nemo_published.csv"))
    args = ap.parse_args()
    rows = list(csv.DictReader(open(args.csv, encoding="utf-8")))
    predicted = [r for r in rows if r["split"] == "predict"]
    errors = {"eager": [], "stack": []}
    print("| model | GPUs | TP x PP (virtual) x DP | global x micro batch | seq | published tokens/s/GPU | eager | error | "
          "`--runtime megatron-core` | error |")
    print("|---|--:|---|--:|--:|--:|--:|--:|--:|--:|")
    for row in predicted:
        published = float(row["published_tokens_per_s_per_gpu"])
        cells = []
        for key, runtime in (("eager", None), ("stack", "megatron-core")):
            value = tokens_per_gpu(args.simulate, row, runtime)
            errors[key].append(abs(value / published - 1))
            cells.append(f"{value:,.0f} | {(value / published - 1) * 100:+.1f} %")
        tp, pp, vp, gpus = int(row["tp"]), int(row["pp"]), int(row["vp"]), int(row["gpus"])
        print(f"| {row['model']} | {gpus} | {tp} x {pp} ({vp}) x {gpus // (tp * pp)} | {row['global_batch']} x {row['micro_batch']} | "
              f"{row['seq_len']} | {published:,.0f} | " + " | ".join(cells) + " |")
    print()
    print(f"Median absolute error over {len(predicted)} rows, every one predicted: eager {statistics.median(errors['eager']) * 100:.1f} %, "
          f"`--runtime megatron-core` {statistics.median(errors['stack']) * 100:.1f} %; "
          f"{len(rows) - len(predicted)} rows left out (`excluded` in the CSV, each with its reason).")


if __name__ == "__main__":
    main()
