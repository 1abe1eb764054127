#!/usr/bin/python3
"""ResNet-50 data-parallel training on a DGX A100 against NVIDIA's DeepLearningExamples: Ridge's
throughput on 1 and 8 GPUs (weak scaling, 256 images per GPU, DDP's bucketed all-reduce overlapped
with backward) beside the published figures, as the markdown table docs/scaling-and-parallel.md
shows (tests/docs/measured_tables.py holds the page to this output).

  validate/scripts/dle_scaling_compare.py [--simulate build/simulate]

Published: NVIDIA/DeepLearningExamples at 729963dd47e7c8bd462ad10bfac7a7b0b604e6dd,
PyTorch/Classification/ConvNets/resnet50v1.5/README.md, 'Training performance: NVIDIA DGX A100 (8x A100
80GB)', rows GPUs=1 and GPUs=8 (pytorch-21.03 NGC, batch 256 per GPU).
"""
import argparse
import json
import pathlib
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]
PUBLISHED = {"tf32": (938, 7248), "fp16": (2470, 16621)}   # img/s on 1 and 8 GPUs
LABEL = {"tf32": "TF32 (`--dtype tf32 --memory-format nchw`)", "fp16": "mixed precision (`--dtype fp16`)"}
# DLE's TF32 runs keep PyTorch's NCHW layout (its --memory-format nhwc goes with AMP), as
# validate/published_throughputs.csv says of the same rows.
EXTRA = {"tf32": ["--memory-format", "nchw"], "fp16": []}


def ridge(simulate, dtype, gpus):
    cmd = [simulate, "models/resnet50.net", "hw/dgx-a100-80gb.hw", "--dtype", dtype, "--data-parallel", str(gpus),
           "--global-batch", str(256 * gpus), "--micro-batch", "256", "--overlap", "--format", "json"] + EXTRA[dtype]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["parallel"]["strategies"][0]["samples_per_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simulate", default=str(REPO / "build" / "simulate"))
    a = ap.parse_args()
    print("| precision | 1 GPU, measured | 1 GPU, Ridge | 8 GPUs, measured | 8 GPUs, Ridge | speedup, measured | speedup, Ridge |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    for dtype, (one, eight) in PUBLISHED.items():
        r1, r8 = ridge(a.simulate, dtype, 1), ridge(a.simulate, dtype, 8)
        print(f"| {LABEL[dtype]} | {one:,} img/s | {r1:,.0f} img/s ({r1 / one - 1:+.1%}) | {eight:,} img/s | "
              f"{r8:,.0f} img/s ({r8 / eight - 1:+.1%}) | {eight / one:.2f}× | {r8 / r1:.2f}× |")


if __name__ == "__main__":
    main()
