#!/usr/bin/python3
"""Where a network's GPU time went, by kind of kernel, against where Ridge puts it (issue #32).

  validate/scripts/breakdown_compare.py validate/measured/RUN [--hw hw/h100-sxm5.hw] [--only NETWORK ...]

Reads RUN/kernels_by_name.csv (`gpu_networks.py --breakdown`: each profiled step's kernels by name,
launches and summed microseconds) and sums them by kind, from the kernel's name; simulates the same
case (its `ridge_command` in RUN/networks.csv) and sums the layers' times by the same kinds. The
measured side is the kernels' summed time (overlaps counted twice, so it can exceed the busy time);
the model's is its layers' times (a training step's forward and backward, without the optimizer).

The kinds, by the first rule that matches (PyTorch 2.x's and cuDNN 9's kernel names):
  layernorm   layer_norm, GammaBeta (its weight gradient)
  depthwise   cuDNN's one-channel-per-group kernels (c1_k1), grouped weight gradients, their
              tensorTransform layout conversions
  copy        direct_copy (a .contiguous() or a reshape that cannot be a view), roll, cat, index
  attention   fmha, sdpa, flash, softmax
  gemm/conv   gemm, nvjet (cuBLAS), fprop/dgrad/wgrad, other conv kernels
  reduce      reduce_kernel (bias and scale gradients, means)
  optimizer   multi_tensor_apply (foreach optimizers)
  elementwise everything else
"""
import argparse
import collections
import csv
import json
import pathlib
import shlex
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]


def kernel_kind(name):
    n = name.lower()
    if "layer_norm" in n or "gammabeta" in n:
        return "layernorm"
    if "c1_k1" in n or "grouped" in n or ("wgrad" in n and "_g16_" in n) or "tensortransform" in n:
        return "depthwise"
    if "direct_copy" in n or "roll" in n or "catarray" in n or "index" in n:
        return "copy"
    if "fmha" in n or "sdpa" in n or "flash" in n or "softmax" in n:
        return "attention"
    if "gemm" in n or "nvjet" in n or "fprop" in n or "dgrad" in n or "wgrad" in n or "conv" in n:
        return "gemm/conv"
    if "reduce_kernel" in n:
        return "reduce"
    if "multi_tensor" in n:
        return "optimizer"
    return "elementwise"


def layer_kind(layer):
    if layer["op"] == "conv" and layer["op_class"] in ("depthwise", "depthwise_large"):
        return "depthwise"
    if layer["op"] == "layernorm":
        return "layernorm"
    if layer["op"] in ("linear", "conv", "matmul", "conv_transpose"):
        return "gemm/conv"
    if layer["op"] in ("attention", "softmax"):
        return "attention"
    if layer["op_class"] == "data_movement":
        return "copy"
    if layer["op_class"] == "reduction":
        return "reduce"
    return "elementwise"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--hw", default=str(REPO / "hw" / "h100-sxm5.hw"))
    ap.add_argument("--simulate", default=str(REPO / "build" / "simulate"))
    ap.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args()
    folder = pathlib.Path(args.folder)
    measured = collections.defaultdict(collections.Counter)
    for row in csv.DictReader(open(folder / "kernels_by_name.csv")):
        key = (row["network"], row["mode"], row["dtype"], row["batch"], row["seq_len"])
        measured[key][kernel_kind(row["kernel"])] += float(row["total_us"]) / 1e3
    commands = {}
    for row in csv.DictReader(open(folder / "networks.csv")):
        commands[(row["network"], row["mode"], row["dtype"], row["batch"], row["seq_len"])] = row["ridge_command"]
    print("| network | mode | dtype | batch | kind | measured ms | model ms | model / measured |")
    print("|---|---|---|--:|---|--:|--:|--:|")
    for key, kinds in measured.items():
        if args.only and key[0] not in args.only:
            continue
        cmd = shlex.split(commands[key].replace("hw/<gpu>.hw", args.hw))
        run = json.loads(subprocess.run([args.simulate] + cmd[1:] + ["--format", "json"], check=True,
                                        capture_output=True, text=True).stdout)
        model = collections.Counter()
        for layer in run["layers"]:
            seconds = layer["time_fwd_train_s"] + (layer["time_bwd_s"] or 0) if key[1] == "train" else layer["time_fwd_s"]
            model[layer_kind(layer)] += seconds * 1e3
        for kind in sorted(set(kinds) | set(model), key=lambda k: -kinds[k]):
            ratio = f"{model[kind] / kinds[kind]:.2f}" if kinds[kind] > 0.005 else "-"
            print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {kind} | {kinds[kind]:.2f} | {model[kind]:.2f} | {ratio} |")


if __name__ == "__main__":
    main()
