#!/usr/bin/env python3
"""Reproduce the calibrate accuracy tables of docs/results/2026-11-24-cpu-calibration.md (docs/calibration.md).

Runs `calibrate` on this machine exactly as that page says (batch 8, fp32, 1 thread, language models
at sequence 128) in one of two set-ups, parses its per-network table and median errors, and writes

  --fit cnn          fit alexnet, vgg11 and resnet18; hold out seven other torchvision networks
                     (ViT-B/16 and ConvNeXt-T among them) and the language models GPT-2 and BERT-base
  --fit transformer  fit three vision transformers (vit_b_32, swin_t, vit_b_16); hold out GPT-2 and
                     BERT-base: do transformers fitted on images predict the language models?


  OUT/calibrate_accuracy-SETUP.json   every network's measured and predicted times and errors, the medians
  OUT/calibrate_accuracy-SETUP.txt    calibrate's per-network table and median lines, as that page quotes them
  OUT/calibrate-SETUP.hw              the calibrated device

and fails (exit 1) when a median error after calibration is above a generous ceiling, i.e. when the
model has regressed well beyond run-to-run noise. The README measured held-out medians of 6.1 %
(inference) and 5.8 % (training step); the ceilings are 25 % (held out) and 15 % (fitted).

Takes about 4-5 minutes on two cores. Run it through CTest: `ctest --test-dir build -L slow`.
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import time

LANGUAGE_MODELS = ["gpt2", "bert_base"]
SETUPS = {
    "cnn": (["alexnet", "vgg11", "resnet18"],
            ["resnet50", "googlenet", "mobilenet_v3_large", "squeezenet1_1", "efficientnet_b0", "vit_b_16",
             "convnext_tiny", *LANGUAGE_MODELS]),
    "transformer": (["vit_b_32", "swin_t", "vit_b_16"], LANGUAGE_MODELS),
}
CEILING = {"fitted": 0.15, "held-out": 0.25}

ROW = re.compile(r"^\s+(\S+)\s+(fitted|held out)\s+" + r"\s+".join([r"([-+\d.]+%?)"] * 6) + r"\s+\|\s+"
                 + r"\s+".join([r"([-+\d.]+%?)"] * 6) + r"\s*$")
MEDIAN = re.compile(r"^Median error, (fitted|held-out) networks \((\d+)\): inference ([\d.]+)% -> ([\d.]+)%, "
                    r"training step ([\d.]+)% -> ([\d.]+)%")


def parse(stdout):
    networks, medians = [], {}
    table = []
    in_table = False
    for line in stdout.splitlines():
        if line.startswith("Per network, end to end"):
            in_table = True
        if in_table and (ROW.match(line) or line.startswith("Per network") or line.strip().startswith("network")
                         or MEDIAN.match(line)):
            table.append(line)
        m = ROW.match(line)
        if m:
            g = m.groups()
            pct = lambda s: float(s.rstrip("%")) / 100.0
            networks.append({
                "network": g[0], "role": g[1],
                "infer_ms": {"measured": float(g[2]), "sum_fwd": float(g[3]), "before": float(g[4]),
                             "error_before": pct(g[5]), "after": float(g[6]), "error_after": pct(g[7])},
                "train_ms": {"measured": float(g[8]), "sum_fwd_bwd": float(g[9]), "before": float(g[10]),
                             "error_before": pct(g[11]), "after": float(g[12]), "error_after": pct(g[13])},
            })
        m = MEDIAN.match(line)
        if m:
            medians[m.group(1)] = {"networks": int(m.group(2)),
                                   "infer_before": float(m.group(3)) / 100, "infer_after": float(m.group(4)) / 100,
                                   "train_before": float(m.group(5)) / 100, "train_after": float(m.group(6)) / 100}
    return networks, medians, table


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calibrate", required=True, help="the calibrate program")
    ap.add_argument("--out", required=True, help="folder for the JSON, the table and the .hw")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq-len", type=int, default=128, help="tokens per sample of the language models")
    ap.add_argument("--fit", choices=sorted(SETUPS), default="cnn", help="which networks the fit sees")
    args = ap.parse_args()
    FIT, HOLDOUT = SETUPS[args.fit]
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cmd = [args.calibrate, "--device", "cpu", "--threads", "1", "--batch", str(args.batch), "--seq-len",
           str(args.seq_len), "--no-layers", "--out", str(out / f"calibrate-{args.fit}.hw"), "--holdout", *HOLDOUT,
           "--", *FIT]
    load_before = os.getloadavg()
    print("running:", " ".join(cmd), flush=True)
    if load_before[0] > 0.5:
        print(f"warning: load average {load_before[0]:.2f} before the run; timings on a busy machine are not "
              "comparable with the documented ones (run it on an idle machine)", flush=True)
    start = time.monotonic()
    run = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        print(f"calibrate failed with status {run.returncode}")
        return 1
    networks, medians, table = parse(run.stdout)
    result = {"command": cmd, "seconds": round(seconds, 1), "load_average_before": load_before,
              "load_average_after": os.getloadavg(), "batch": args.batch, "seq_len": args.seq_len,
              "precision": "fp32", "setup": args.fit,
              "fitted": FIT, "held_out": HOLDOUT, "networks": networks, "median_error": medians,
              "ceiling": CEILING, "ceilings_line": next((l for l in run.stdout.splitlines()
                                                         if l.startswith("Ceilings measured")), "")}
    json_path, text_path = out / f"calibrate_accuracy-{args.fit}.json", out / f"calibrate_accuracy-{args.fit}.txt"
    json_path.write_text(json.dumps(result, indent=2) + "\n")
    text_path.write_text("\n".join(table) + "\n")
    print("\n".join(table))
    print(f"({seconds:.0f} s; wrote {json_path} and {text_path})")

    failures = []
    if len(networks) != len(FIT) + len(HOLDOUT):
        failures.append(f"expected {len(FIT) + len(HOLDOUT)} networks in calibrate's table, parsed {len(networks)}")
    for role, ceiling in CEILING.items():
        m = medians.get(role)
        if not m:
            failures.append(f"no median error line for {role} networks")
            continue
        for key in ("infer_after", "train_after"):
            if not m[key] <= ceiling:
                failures.append(f"{role} median {key} {m[key]:.1%} is above the ceiling {ceiling:.0%}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
