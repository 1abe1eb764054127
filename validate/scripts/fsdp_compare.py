#!/usr/bin/python3
"""PyTorch FSDP training throughput as MosaicML published it (llm-foundry's MPT benchmarks) against Ridge.

Reads validate/fsdp_published.csv: MPT models of 1.3 to 12.9 billion parameters trained on one node of 8
A100 80GB or H100 80GB GPUs with FSDP FULL_SHARD, bf16 autocast, decoupled AdamW, FlashAttention-2, the
micro-batch, gradient accumulation and activation checkpointing of each row. The models are
models/gpt.net at MPT's sizes (vocabulary 50,368, learned positions, biases: the CSV's parameter count,
which the published table gives, is checked exactly). Each row is simulated as

  simulate models/gpt.net hw/DEVICE.hw --set ... --dtype bf16 --optimizer adamw --data-parallel 8 --zero 3
      --micro-batch M --global-batch M*A*8 [--recompute full] --overlap [--runtime fsdp]

(--overlap: FSDP prefetches each block's all-gather and overlaps the reduce-scatter with the backward;
Zhao et al., "PyTorch FSDP", VLDB 2023).

three ways: the kernel model as eager PyTorch with the .net's attention (materialised), the kernel model
under runtimes/fsdp.rt (its FlashAttention-2), and the flat model under the runtime. Prints a markdown
table of tokens per second per GPU, published and predicted, with the error (predicted / published - 1),
and the median absolute error of each. Every row is a prediction: no constant was fitted on them.

  validate/scripts/fsdp_compare.py [--simulate build/simulate] [--csv validate/fsdp_published.csv]
"""
import argparse
import csv
import json
import pathlib
import statistics
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def network_args(row):
    return [str(REPO / "models" / "gpt.net"), str(REPO / "hw" / (row["device_id"] + ".hw")),
            "--set", f"layers={row['layers']}", "--set", f"hidden={row['hidden']}", "--set", f"heads={row['heads']}",
            "--set", f"vocab={row['vocab']}", "--set", f"seq_len={row['seq_len']}", "--set", f"n_ctx={row['seq_len']}"]


def run_json(cmd, row):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"simulate failed on {row['model']} {row['device_id']}: {done.stderr.strip()}")
    return json.loads(done.stdout)


def parameters(simulate_bin, row):
    return run_json([simulate_bin] + network_args(row) + ["--format", "json"], row)["runs"][0]["params"]


def simulate(simulate_bin, row, model, runtime):
    mb, ga, gpus = int(row["micro_batch"]), int(row["grad_accum"]), int(row["gpus"])
    cmd = [simulate_bin] + network_args(row) + ["--dtype", "bf16", "--optimizer", "adamw", "--data-parallel", str(gpus), "--zero", "3",
           "--micro-batch", str(mb), "--global-batch", str(mb * ga * gpus), "--overlap",
           "--kernel-model", model, "--format", "json"]
    if row["activation_checkpointing"] == "true":
        cmd += ["--recompute", "full"]
    if runtime:
        cmd += ["--runtime", runtime]
    strategy = run_json(cmd, row)["parallel"]["strategies"][0]
    tokens = mb * ga * gpus * int(row["seq_len"])
    return tokens / strategy["step_s"] / gpus, strategy


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simulate", default=str(REPO / "build" / "simulate"))
    ap.add_argument("--csv", default=str(REPO / "validate" / "fsdp_published.csv"))
    args = ap.parse_args()
    rows = list(csv.DictReader(open(args.csv, encoding="utf-8")))
    errors = {"eager": [], "fsdp": [], "flat": []}
    print("| model | GPUs | seq | micro-batch x accumulation | checkpointing | published tokens/s/GPU | eager | error | "
          "`--runtime fsdp` | error | flat model | error | memory/GPU |")
    print("|---|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for row in rows:
        published = float(row["published_tokens_per_s_per_gpu"])
        params = parameters(args.simulate, row)
        if round(params) != int(row["published_params"]):
            sys.exit(f"{row['model']} at {row['seq_len']}: {params:.0f} parameters, the table says {row['published_params']}")
        eager, _ = simulate(args.simulate, row, "micro", None)
        fsdp, strategy = simulate(args.simulate, row, "micro", "fsdp")
        flat, _ = simulate(args.simulate, row, "flat", "fsdp")
        cells = []
        for key, value in (("eager", eager), ("fsdp", fsdp), ("flat", flat)):
            errors[key].append(abs(value / published - 1))
            cells.append(f"{value:,.0f} | {(value / published - 1) * 100:+.1f} %")
        gpu = "8 x A100 80GB" if "a100" in row["device_id"] else "8 x H100 80GB"
        memory = strategy["memory_per_device_bytes"] / 2**30
        print(f"| {row['model']} | {gpu} | {row['seq_len']} | {row['micro_batch']} x {row['grad_accum']} | "
              f"{'full' if row['activation_checkpointing'] == 'true' else 'none'} | {published:,.0f} | " + " | ".join(cells) +
              f" | {memory:.0f} GiB |")
    print()
    print(f"Median absolute error over {len(rows)} rows, every one predicted: eager {statistics.median(errors['eager']) * 100:.1f} %, "
          f"`--runtime fsdp` {statistics.median(errors['fsdp']) * 100:.1f} % (worst {max(errors['fsdp']) * 100:.1f} %), "
          f"flat model {statistics.median(errors['flat']) * 100:.1f} %.")


if __name__ == "__main__":
    main()
