#!/usr/bin/python3
"""Megatron-LM's weak-scaling table (Narayanan et al., SC'21, Table 1) against Ridge, both GPU models.

GPT models (vocabulary 51,200, sequence 2,048, bf16 mixed precision, Adam, full recomputation) on
Selene's DGX A100 80 GB nodes (hw/superpod-a100-80gb.hw). The paper's TFLOP/s per GPU count its formula
F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) per step over its measured time; Ridge's divide the same F by
Ridge's step. The paper gives no micro-batch: Ridge uses 1, no interleaving, no sequence parallelism,
ZeRO 0, the all-reduce overlapped. Prints a markdown table (kernel model, then flat model) and the
median absolute error of each. No row was fitted on.

  validate/scripts/megatron_compare.py [--simulate build/simulate]
"""
import argparse
import json
import pathlib
import statistics
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]
# params, heads, hidden, layers, T, P, D, global batch, published TFLOP/s per GPU (Table 1)
ROWS = [("1.7 B", 24, 2304, 24, 1, 1, 32, 512, 137), ("3.6 B", 32, 3072, 30, 2, 1, 32, 512, 138),
        ("7.5 B", 32, 4096, 36, 4, 1, 32, 512, 142), ("18.4 B", 48, 6144, 40, 8, 1, 32, 1024, 135),
        ("39.1 B", 64, 8192, 48, 8, 2, 32, 1536, 138), ("76.1 B", 80, 10240, 60, 8, 4, 32, 1792, 140),
        ("145.6 B", 96, 12288, 80, 8, 8, 24, 2304, 148), ("310.1 B", 128, 16384, 96, 8, 16, 15, 2160, 155),
        ("529.6 B", 128, 20480, 105, 8, 35, 9, 2520, 163), ("1008 B", 160, 25600, 128, 8, 64, 6, 3072, 163)]
VOCAB, SEQ = 51200, 2048


def step_seconds(simulate, heads, hidden, layers, t, p, d, batch, model):
    cmd = [simulate, str(REPO / "models" / "gpt.net"), str(REPO / "hw" / "superpod-a100-80gb.hw"),
           "--set", f"layers={layers}", "--set", f"hidden={hidden}", "--set", f"heads={heads}", "--set", f"vocab={VOCAB}",
           "--dtype", "bf16", "--optimizer", "adam", "--recompute", "full", "--tensor-parallel", str(t),
           "--pipeline-parallel", str(p), "--data-parallel", str(d), "--global-batch", str(batch), "--micro-batch", "1",
           "--overlap", "--format", "json", "--kernel-model", model]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["parallel"]["strategies"][0]["step_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simulate", default=str(REPO / "build" / "simulate"))
    args = ap.parse_args()
    errors = {"micro": [], "flat": []}
    print("| params | T | P | D | GPUs | batch | published TFLOP/s/GPU | kernel model step | TFLOP/s/GPU | error | flat model | error |")
    print("|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for name, heads, hidden, layers, t, p, d, batch, published in ROWS:
        flops = 96 * batch * SEQ * layers * hidden ** 2 * (1 + SEQ / (6 * hidden) + VOCAB / (16 * layers * hidden))
        cells = []
        for model in ("micro", "flat"):
            step = step_seconds(args.simulate, heads, hidden, layers, t, p, d, batch, model)
            tflops = flops / step / (t * p * d) / 1e12
            errors[model].append(abs(tflops / published - 1))
            cells.append((step, tflops, tflops / published - 1))
        (ms, mt, me), (_, ft, fe) = cells
        print(f"| {name} | {t} | {p} | {d} | {t * p * d} | {batch} | {published} | {ms:.1f} s | {mt:.0f} | {me * 100:+.0f} % | "
              f"{ft:.0f} | {fe * 100:+.0f} % |")
    print()
    print(f"Median absolute error: kernel model {statistics.median(errors['micro']) * 100:.1f} %, "
          f"flat model {statistics.median(errors['flat']) * 100:.1f} %")


if __name__ == "__main__":
    main()
