#!/usr/bin/python3
"""Ridge's predictions against a GPU run of our own: the kernel model, the flat model and a calibration.

Reads a folder written by validate/scripts/gpu_run.sh and committed under validate/measured/ (its
README.md says what was run, on what, and how):
  kernels.csv   single kernels (GEMMs, attention, streaming ops, convolutions), three runs;
  networks.csv  whole networks in eager PyTorch, inference and a training step, three runs;
and simulates every case with `--kernel-model micro` and `--kernel-model flat` on the device's
catalogue .hw (and, for networks, on the calibrated .hw files given with --calibrated).

What each measurement is compared with:
  - kernels: CUDA events around one PyTorch call, queued behind a 512 MiB L2-clearing write, so the
    launch is hidden and the time is the kernel's own: the kernel model's device time (its launch
    overlaps), the flat model's time less its launch overhead;
  - networks: the step's wall time (CUDA events around the step, synchronised) and the time the GPU
    was busy in it (the union of its kernels, from torch.profiler): the model's step time is a
    prediction of the first; where the host issues kernels slower than the GPU runs them (eager
    PyTorch, small kernels) the two part, and the busy time is what a kernel model can be held to.

The measured figure of a case is the median over the runs of each run's median; the spread printed
is the range of the runs' medians relative to it. No constant of Ridge was fitted on these rows
(validate/measured/*/README.md lists what each constant saw): every error is a prediction.

  validate/scripts/measured_compare.py validate/measured/h200-sxm-2026-11-26                # summary
  validate/scripts/measured_compare.py validate/measured/h200-sxm-2026-11-26 --rows         # every row
  validate/scripts/measured_compare.py DIR --calibrated hw/calibrated/h200-sxm-pytorch-bf16.hw ...
  validate/scripts/measured_compare.py DIR --fit    # what the `fit` rows imply for the fitted constants

--fit prints, for the attention kernel model (engine/kernels/attention.cpp), the efficiency and the
fill per pass that fit the `fit` attention rows best (least squares of the log error, the model's
terms read from `simulate --explain`). Only rows marked `fit` enter it.
"""
import argparse
import collections
import concurrent.futures
import csv
import json
import math
import pathlib
import re
import shlex
import statistics
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
NETS = REPO / "validate" / "nets"
STREAM_LAYER = {"add": "add", "mul_scalar": "mulu", "relu": "relu", "gelu": "gelu", "silu": "silu",
                "layer_norm": "ln", "softmax": "softmax", "rms_norm": "rms"}


def run_json(cmd):
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({done.returncode}): {done.stderr.strip()}")
    return json.loads(done.stdout)


def kernel_seconds(doc, layer_name, model, backward=False):
    """One layer's kernel time: the kernel model's device time, the flat model's less its launch."""
    layer = next(l for l in doc["layers"] if l["name"] == layer_name)
    if backward:
        return layer["time_bwd_s"]
    if model == "micro":
        return layer["device_fwd_s"] if layer.get("device_fwd_s") is not None else layer["time_fwd_s"]
    return layer["time_fwd_s"] - doc["runs"][0]["launch_overhead_s"]


def flash2_row(row):
    """PyTorch's `flash` backend is FlashAttention-2's kernels (kernel: "flash2"); the others fused ones."""
    return row["extra"].split(";")[0] == "flash"


def kernel_case_command(simulate, hw, row, model):
    """(command, layer name, backward?) for one kernels.csv case; None for cases with no model net."""
    base = [simulate, None, str(hw), "--dtype", row["dtype"], "--format", "json", "--kernel-model", model]
    group, op = row["group"], row["op"]
    if group == "gemm":
        base[1] = str(NETS / "gemm.net")
        return base + ["--batch", "1", "--set", f"m={row['m']}", "--set", f"n={row['n']}", "--set", f"k={row['k']}"], "gemm", False
    if group == "attention":
        fields = dict(kv.split("=") for kv in row["extra"].split(";")[1:])
        heads = int(fields["heads"])
        batch = int(row["batch"]) // heads
        base[1] = str(NETS / ("attention_flash2.net" if flash2_row(row) else "attention.net"))
        return base + ["--batch", str(batch), "--set", f"seq={row['m']}", "--set", f"heads={heads}", "--set", f"d={row['k']}",
                       "--set", f"causal={fields['causal']}"], "sdpa", op == "sdpa_backward"
    if group == "window_copies" and op == "window_partition":
        base[1] = str(NETS / "window_partition.net")
        return base + ["--batch", row["batch"], "--set", f"channels={row['n']}"], "partition", False
    if group in ("streaming", "row_widths") and op in STREAM_LAYER:
        # The row kernels' width: the row's n where it gives one (row_widths), else the sweep's 4,096.
        elements, width = int(row["m"]), (int(row["n"]) if group == "row_widths" else 4096)
        base[1] = str(NETS / "streaming.net")
        return base + ["--batch", "1", "--set", f"rows={elements // width}", "--set", f"cols={width}"], STREAM_LAYER[op], False
    if group in ("conv", "conv_backward"):
        name, groups = row["extra"].split(";")[0], int(row["extra"].split(";")[1].split("=")[1])
        b, out_ch, kk = int(row["batch"]), int(row["n"]), int(row["k"])
        out_pixels = int(row["m"]) // b
        # (kernel, stride, size, ch_in) back from the row: the conv's own name fixes kernel and stride.
        shape = CONVS[name]
        base[1] = str(NETS / "conv.net")
        cmd = base + ["--batch", str(b), "--set", f"ch_in={shape[0]}", "--set", f"ch_out={out_ch}", "--set", f"size={shape[2]}",
                      "--set", f"kernel={shape[1]}", "--set", f"stride={shape[3]}", "--set", f"groups={groups}"]
        if group == "conv":
            return cmd, "conv", False
        # The backward's gradients apart: the weight gradient is the backward of a convolution whose input
        # needs none; the input gradient, what the backward adds where the input needs one.
        if op == "conv2d_grad_weight":
            return cmd + ["--pass", "train"], "conv", True
        return cmd + ["--pass", "train", "--set", "input_grad=1"], "conv", True, cmd + ["--pass", "train"]
    return None


# name -> (ch_in, kernel, input size, stride): validate/scripts/gpu_kernels.py's convolutions.
CONVS = {
    "resnet50.conv1": (3, 7, 224, 2), "resnet50.layer1.conv2": (64, 3, 56, 1), "resnet50.layer1.conv3": (64, 1, 56, 1),
    "resnet50.layer3.conv2": (256, 3, 14, 1), "resnet50.layer4.conv2": (512, 3, 7, 1),
    "efficientnet_b0.dw3x3": (96, 3, 112, 2), "efficientnet_b0.dw5x5": (240, 5, 28, 1),
    "efficientnet_b0.dw3x3_s1": (480, 3, 14, 1), "mobilenet_v2.dw3x3": (144, 3, 56, 1),
    "vgg16.stage1.conv2": (64, 3, 224, 1), "vgg16.stage2.conv1": (64, 3, 112, 1), "vgg16.stage3.conv1": (128, 3, 56, 1),
    "vgg16.stage4.conv1": (256, 3, 28, 1),
}


def case_key(row, fields):
    return tuple(row[f] for f in fields)


def measured_cases(rows, fields, value):
    """Per case (the fields' values): the median of the runs' medians and the runs' range relative to it."""
    by_case = collections.defaultdict(list)
    for r in rows:
        by_case[case_key(r, fields)].append((r, float(r[value])))
    out = {}
    for key, items in by_case.items():
        values = [v for _, v in items]
        mid = statistics.median(values)
        out[key] = (items[0][0], mid, (max(values) - min(values)) / mid if mid else 0.0)
    return out


def pct(x):
    return f"{x * 100:+.1f} %"


def median_abs(values):
    return f"{statistics.median([abs(v) for v in values]) * 100:.1f} %" if values else "-"


def group_label(row):
    if row["group"] == "gemm":
        return f"gemm {row['dtype']} {row['extra']}"
    if row["group"] == "attention":
        backend = row["extra"].split(";")[0]
        return f"attention {backend} {row['op'].split('_')[1]}" + ("" if row["dtype"] == "bf16" else f" {row['dtype']}")
    if row["group"] == "streaming":
        return f"streaming {row['op']}"
    if row["group"] == "row_widths":
        return f"{row['op'].replace('_', ' ')} {row['dtype']}, {row['n']} wide"
    if row["group"] == "window_copies":
        return f"window partition copy {row['dtype']}"
    if row["group"] == "conv_backward":
        return f"conv {row['op'].replace('conv2d_', '').replace('_', ' ')} " + ("depthwise" if "groups=1;" not in row["extra"] else "dense") + f" {row['dtype']}"
    return "conv " + ("depthwise" if "groups=1;" not in row["extra"] else "dense")


def summary_label(row):
    """docs/gpu.md's coarser groups; None for the forced attention backends (PyTorch's default is what
    Ridge models; the others are in the full table)."""
    if row["group"] == "gemm":
        return f"GEMM {row['dtype']}" + {"small_k": ", small K", "unaligned": ", unaligned", "alignment": ", alignment probes"}.get(row["extra"], "")
    if row["group"] == "attention":
        backend = row["extra"].split(";")[0]
        if backend != "default":
            return None
        causal = "causal" if "causal=1" in row["extra"] else "no mask"
        return f"attention {row['op'].split('_')[1]}, {causal}" + ("" if row["dtype"] == "bf16" else f", {row['dtype']}")
    if row["group"] == "streaming":
        return "elementwise" if row["op"] in ("add", "mul_scalar", "relu", "gelu", "silu") else "layer norm, RMS norm, softmax"
    if row["group"] == "row_widths":
        return f"{row['op'].replace('_', ' ')}, rows of {'under' if int(row['n']) < 1024 else 'at least'} 1,024"
    if row["group"] == "window_copies":
        return "window partition copy"
    if row["group"] == "conv_backward":
        return f"convolution {row['op'].replace('conv2d_', '').replace('_', ' ')}, " + ("depthwise" if "groups=1;" not in row["extra"] else "dense")
    return "convolution, " + ("depthwise" if "groups=1;" not in row["extra"] else "dense")


def compare_kernels(args, folder, hw):
    rows = list(csv.DictReader(open(folder / "kernels.csv")))
    fields = ["group", "op", "dtype", "m", "n", "k", "batch", "extra"]
    cases = measured_cases(rows, fields, "median_us")
    jobs = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for key, (row, _, _) in cases.items():
            for model in ("micro", "flat"):
                made = kernel_case_command(args.simulate, hw, row, model)
                if made:
                    cmd, layer, backward, *minus = made
                    jobs[(key, model)] = (pool.submit(run_json, cmd), layer, backward,
                                          pool.submit(run_json, minus[0]) if minus else None)
        results = {k: kernel_seconds(f.result(), layer, k[1], backward) - (kernel_seconds(m.result(), layer, k[1], backward) if m else 0.0)
                   for k, (f, layer, backward, m) in jobs.items()}
    new = lambda: {"micro": [], "flat": [], "spread": [], "fit": []}
    groups, coarse = collections.defaultdict(new), collections.defaultdict(new)
    if args.rows:
        print("## Kernels, every case\n")
        print("| case | split | measured us | spread | kernel model us | error | flat model us | error |")
        print("|---|---|--:|--:|--:|--:|--:|--:|")
    for key, (row, measured_us, spread) in sorted(cases.items()):
        if (key, "micro") not in results:
            continue
        micro, flat = results[(key, "micro")] * 1e6, results[(key, "flat")] * 1e6
        err_micro, err_flat = micro / measured_us - 1, flat / measured_us - 1
        for g in filter(None, (groups[group_label(row)], coarse[summary_label(row)] if summary_label(row) else None)):
            if row["split"] == "fit":
                g["fit"].append(err_micro)
                continue
            g["micro"].append(err_micro)
            g["flat"].append(err_flat)
            g["spread"].append(spread)
        if args.rows:
            print(f"| {group_label(row)} {row['m']}x{row['n']}x{row['k']} b{row['batch']} {row['extra']} | {row['split']} | "
                  f"{measured_us:.1f} | {spread * 100:.1f} % | {micro:.1f} | {pct(err_micro)} | {flat:.1f} | {pct(err_flat)} |")
    if args.rows:
        print()

    def table(title, groups):
        print(f"{title}\n")
        print("| kernels | predicted cases | run-to-run spread | kernel model | flat model | fit cases (kernel model) |")
        print("|---|--:|--:|--:|--:|--:|")
        every = {"micro": [], "flat": []}
        for label in sorted(groups):
            g = groups[label]
            every["micro"] += g["micro"]
            every["flat"] += g["flat"]
            spread = f"{statistics.median(g['spread']) * 100:.1f} %" if g["spread"] else "-"
            fit = f"{len(g['fit'])}: {median_abs(g['fit'])}" if g["fit"] else "-"
            print(f"| {label} | {len(g['micro'])} | {spread} | {median_abs(g['micro'])} | {median_abs(g['flat'])} | {fit} |")
        print(f"| **every predicted case** | {len(every['micro'])} | | **{median_abs(every['micro'])}** | "
              f"**{median_abs(every['flat'])}** | |\n")

    if not args.summary:
        table("## Kernels by group (median absolute error over the predicted cases)", groups)
    table("## Kernels (median absolute error over the predicted cases; PyTorch's default attention)", coarse)


def catalogue_hw(folder):
    """The catalogue .hw of a measured folder's GPU: its name less the date (and a -pm suffix)."""
    return REPO / "hw" / (re.sub(r"-\d{4}-\d\d-\d\d(-[a-z]+)?$", "", folder.name) + ".hw")


def network_command(args, row, hw, model, host=False):
    """simulate's command for a network case: the GPU alone (host=False), or with the Python host that ran
    it (host=True: runtimes/pytorch-python.rt, which also runs the foreach update gpu_networks.py's steps ran)."""
    cmd = shlex.split(row["ridge_command"].replace("hw/<gpu>.hw", str(hw)))
    if row["mode"] == "train" and args.as_run:
        # The step as gpu_networks.py runs it: torch.optim's foreach update, and in bf16 the weights and
        # states in bf16 (model.to(bfloat16): no fp32 master copy). Rows recorded before 2026-11-27's
        # third H100 run name neither in their command.
        if "--runtime" not in cmd:
            cmd += ["--runtime", "pytorch-foreach"]
        if row["dtype"] in ("bf16", "fp16") and "--no-master-weights" not in cmd:
            cmd += ["--no-master-weights"]
    if host:
        if "--runtime" in cmd:
            i = cmd.index("--runtime")
            del cmd[i:i + 2]
        cmd += ["--runtime", "pytorch-python"]
    return [args.simulate] + cmd[1:] + ["--format", "json", "--kernel-model", model]


def calibrated_for(args, dtype):
    """The --calibrated file made for this precision (its name ends in -DTYPE.hw), or None."""
    for c in args.calibrated:
        if pathlib.Path(c).stem.endswith("-" + dtype):
            return pathlib.Path(c)
    return None


def fitted_networks(calibrated):
    """The networks a calibrated .hw was fitted to, as its launch_overhead's source names them."""
    found = re.search(r"fitted by ridge calibrate on \S+ to (.*?) and \d+ kernel probes", calibrated.read_text())
    return set(found.group(1).split(", ")) if found else set()


def compare_networks(args, folder, hw):
    rows = list(csv.DictReader(open(folder / "networks.csv")))
    fields = ["network", "mode", "dtype", "batch", "seq_len"]
    wall = measured_cases(rows, fields, "median_ms")
    busy = measured_cases(rows, fields, "busy_ms")
    labels = ["kernel model", "flat model"] + (["calibrated"] if args.calibrated else [])

    def setups(row):
        out = [("kernel model", "micro", hw), ("flat model", "flat", hw)]
        calibrated = calibrated_for(args, row["dtype"])
        if calibrated:
            out.append(("calibrated", "micro", calibrated))
        return out

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {(key, label): pool.submit(run_json, network_command(args, row, device, model))
                   for key, (row, _, _) in wall.items() for label, model, device in setups(row)}
        predicted = {}
        for (key, label), f in futures.items():
            run = f.result()["runs"][0]
            predicted[(key, label)] = (run["time_train_step_s"] if key[1] == "train" else run["time_fwd_s"]) * 1e3
    print("## Whole networks (eager PyTorch)\n")
    if args.summary:   # docs/gpu.md's: each model's error against the GPU's busy time only
        print("| network | mode | dtype | batch | seq | wall ms | GPU busy ms | " + " | ".join(labels) + " |")
        print("|---|---|---|--:|--:|--:|--:|" + "--:|" * len(labels))
    else:
        print("| network | mode | dtype | batch | seq | wall ms | spread | GPU busy ms | " + " | ".join(f"{l} ms | vs wall | vs busy" for l in labels) + " |")
        print("|---|---|---|--:|--:|--:|--:|--:|" + "--:|--:|--:|" * len(labels))
    errors = {l: {"wall": [], "busy": []} for l in labels}
    held_out, held_out_names = [], set()
    for key, (row, wall_ms, spread) in sorted(wall.items()):
        busy_ms = busy[key][1]
        cells = []
        for l in labels:
            if (key, l) not in predicted:
                cells.append("-" if args.summary else "- | - | -")
                continue
            p = predicted[(key, l)]
            errors[l]["wall"].append(p / wall_ms - 1)
            errors[l]["busy"].append(p / busy_ms - 1)
            if l == "calibrated" and row["network"] not in fitted_networks(calibrated_for(args, row["dtype"])):
                held_out += [("wall", p / wall_ms - 1), ("busy", p / busy_ms - 1)]
                held_out_names.add(row["network"])
            cells.append(pct(p / busy_ms - 1) if args.summary else f"{p:.2f} | {pct(p / wall_ms - 1)} | {pct(p / busy_ms - 1)}")
        if args.summary:
            print(f"| {row['network']} | {row['mode']} | {row['dtype']} | {row['batch']} | {row['seq_len'] or '-'} | {wall_ms:.2f} | "
                  f"{busy_ms:.2f} | " + " | ".join(cells) + " |")
            continue
        print(f"| {row['network']} | {row['mode']} | {row['dtype']} | {row['batch']} | {row['seq_len'] or '-'} | {wall_ms:.2f} | "
              f"{spread * 100:.1f} % | {busy_ms:.2f} | " + " | ".join(cells) + " |")
    print()
    for l in labels:
        print(f"- {l}: median absolute error {median_abs(errors[l]['wall'])} against the wall time, "
              f"{median_abs(errors[l]['busy'])} against the GPU's busy time ({len(errors[l]['wall'])} cases)")
    if held_out:
        print(f"- calibrated, networks it did not see ({', '.join(sorted(held_out_names))}): median absolute error "
              f"{median_abs([e for _, e in held_out if _ == 'wall'])} against the wall time, "
              f"{median_abs([e for _, e in held_out if _ == 'busy'])} against the GPU's busy time ({len(held_out) // 2} cases)")
    print()


def fit_alignment_one(args, folder, hw):
    """What the folder's GPT-2 lm_head layer passes (calibrate's CUPTI times; vocabulary 50,257, so cuBLAS
    runs its alignment-1 fallback) imply for kAlignOneFlopsPerClock in engine/kernels/gemm.cpp: per pass,
    the rate in force times (modelled less fixed) / (measured less fixed), the passes being compute-bound
    at that rate; the median over the passes found."""
    gemm_cpp = (REPO / "engine" / "kernels" / "gemm.cpp").read_text()
    current = float(re.search(r"kAlignOneFlopsPerClock = ([0-9.]+);", gemm_cpp).group(1))
    fixed = float(re.search(r"kKernelFixedSeconds = ([0-9.e-]+);", gemm_cpp).group(1))
    implied = []
    for path in sorted((folder / "layers").glob("*-gpt2.csv")):
        dtype = path.name.split("-")[0]
        measured = {r["pass"]: float(r["seconds"]) for r in csv.DictReader(open(path)) if r["layer"] == "lm_head"}
        cmd = [args.simulate, str(REPO / "models" / "gpt2.net"), str(hw), "--dtype", dtype, "--batch", "32",
               "--set", "seq_len=128", "--format", "json", "--kernel-model", "micro"]
        layer = next(l for l in run_json(cmd)["layers"] if l["name"] == "lm_head")
        for p, kernels in (("forward", 1), ("backward", 2)):
            if p in measured:
                modelled = layer["time_bwd_s" if p == "backward" else "time_fwd_s"]
                implied.append((f"{dtype} {p}", current * (modelled - kernels * fixed) / (measured[p] - kernels * fixed)))
    if implied:
        values = [v for _, v in implied]
        print(f"alignment-1 fallback: {statistics.median(values):.0f} FLOP per SM per clock (median of {len(values)} lm_head passes: "
              + ", ".join(f"{name} {v:.0f}" for name, v in implied) + ")")


UNITS = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def seconds_in(text):
    value, unit = text.split()
    return float(value) * UNITS[unit]


def fit_attention(args, folder, hw):
    """Per pass, the attention efficiency and fill (engine/kernels/attention.cpp) that fit the `fit`
    rows best: the model's own terms for each row, read from `simulate --explain` at the constants in
    force (the busiest SM's steps and blocks, a step's products and exponentials), recombined as
    attention.hpp states, (steps + blocks x fill) x (products / efficiency + exponentials) + fixed, and
    the pair searched on a grid (efficiency 0.300-1.000 by 0.005, fill 0-8 steps by 0.05) for the
    least squared log error."""
    rows = [r for r in csv.DictReader(open(folder / "kernels.csv")) if r["split"] == "fit" and r["group"] == "attention"]
    cases = measured_cases(rows, ["group", "op", "dtype", "m", "n", "k", "batch", "extra"], "median_us")
    text = (REPO / "engine" / "kernels" / "attention.cpp").read_text()
    current = {m.group(1) == "true": m for m in re.finditer(r'\{"hopper", (false|true), ([0-9.]+), ([0-9.]+), ([0-9.]+), ([0-9.]+)\}', text)}
    terms = collections.defaultdict(list)
    for key, (row, measured_us, _) in sorted(cases.items()):
        cmd, layer, backward = kernel_case_command(args.simulate, hw, row, "micro")
        cmd = [c for c in cmd if c not in ("--format", "json")] + ["--explain", layer]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        section = out.split("backward:")[1] if backward else out.split("backward:")[0]
        steps = float(re.search(r"SMs runs (\d+) steps", section).group(1))
        found = re.search(r"a step ([0-9.]+ [a-z]+): .*?, ([0-9.]+ [a-z]+) of exponentials; (\d+) blocks", section)
        step, exp, blocks = seconds_in(found.group(1)), seconds_in(found.group(2)), float(found.group(3))
        fixed = seconds_in(re.search(r"\+ fixed ([0-9.]+ [a-z]+)", section).group(1))
        flash2 = flash2_row(row)
        eff = float(current[flash2].group(3) if backward else current[flash2].group(2))
        kernel = "FlashAttention-2" if flash2 else "fused"
        terms[f"{kernel} {'backward' if backward else 'forward'}"].append((steps, blocks, (step - exp) * eff, exp, fixed, measured_us * 1e-6))
    def ratio(case, e, f):   # modelled / measured at efficiency e and fill f
        steps, blocks, products, exp, fixed, measured = case
        return ((steps + blocks * f) * (products / e + exp) + fixed) / measured

    for p, cases_of in sorted(terms.items()):
        best = None
        for e in (x / 1000 for x in range(300, 1001, 5)):
            for f in (x * 0.05 for x in range(161)):
                sse = sum(math.log(ratio(case, e, f)) ** 2 for case in cases_of)
                if best is None or sse < best[0]:
                    best = (sse, e, f)
        _, e, f = best
        errors = ", ".join(f"{ratio(case, e, f) - 1:+.1%}" for case in cases_of)
        print(f"attention {p}: efficiency {e:.3f}, fill {f:.2f} steps per block (least squares over {len(cases_of)} fit cases: {errors})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="a folder of validate/measured/")
    ap.add_argument("--simulate", default=str(REPO / "build" / "simulate"))
    ap.add_argument("--hw", help="the catalogue .hw of the measured GPU (default: the folder name's device, hw/DEVICE.hw)")
    ap.add_argument("--calibrated", nargs="*", default=[],
                    help="calibrated .hw files, one per precision (NAME-bf16.hw, NAME-tf32.hw): each predicts its precision's networks")
    ap.add_argument("--rows", action="store_true", help="print every kernel case")
    ap.add_argument("--summary", action="store_true", help="the coarse kernel table and the networks only (docs/gpu.md's)")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--as-run", action="store_true",
                    help="simulate training steps as gpu_networks.py ran them: foreach optimizer, no master weights in bf16")
    ap.add_argument("--fit", action="store_true", help="print what the fit rows imply for the fitted constants")
    args = ap.parse_args()
    folder = pathlib.Path(args.folder)
    hw = pathlib.Path(args.hw) if args.hw else catalogue_hw(folder)
    try:
        if args.fit:
            fit_attention(args, folder, hw)
            fit_alignment_one(args, folder, hw)
            return 0
        compare_kernels(args, folder, hw)
        compare_networks(args, folder, hw)
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
