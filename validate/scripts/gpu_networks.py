#!/usr/bin/env python3
"""Times whole networks in eager PyTorch on a GPU, as a user's script runs them (issue #40).

Networks, each as the zoo's .net describes it (models/*.net name the same constructors):
  resnet50  torchvision.models.resnet50(), channels_last                      (models/resnet50.net)
  bert_base transformers BertModel(BertConfig()) = bert-base-uncased's shape  (models/bert_base.net)
  gpt2      transformers GPT2LMHeadModel(GPT2Config()) = "gpt2"'s shape       (models/gpt2.net)
  llama_2b  transformers LlamaForCausalLM at reduced width: 8 layers, hidden 2048, 16 heads,
            intermediate 5504, vocab 32000                                  (models/llama.net --set ...)
With --cases blind (issue #32's weak rows, chosen after the H100 and H200 runs and predicted before they
ran): batch-1 and batch-8 eager ResNet-50 and BERT-base (the host's share), ResNet-50 in PyTorch's
default NCHW layout (network resnet50_nchw: `--memory-format nchw`), EfficientNet-B0, MobileNet-v2,
VGG-16 and ViT-B/16 (torchvision; models/NAME.net), BERT-large at sequence 512 (models/bert_large.net).
Modes: inference (torch.inference_mode) and a training step (zero_grad, forward, backward, optimizer
step: SGD with momentum for ResNet-50, AdamW for the transformers: what their recipes use).
Precisions: bf16 (the model and inputs in bfloat16, as Ridge's --dtype bf16 assumes) and tf32 (fp32
tensors, TF32 matmuls and convolutions: PyTorch's "high" float32 matmul precision).

Per case: 3 warm-up steps, then --repeats timed steps (CUDA events around each step, synchronised), and
one step under torch.profiler for the kernels' count, their summed time and the time the GPU was busy
(the union of kernel intervals): wall minus busy is what the host and launches cost.

    python3 validate/scripts/gpu_networks.py --out networks.csv [--quick]
"""
import argparse
import csv
import json
import os
import sys
import tempfile
import time

import torch

DEVICE = "cuda"   # --device cpu: a smoke test of the script itself on a machine without a GPU
FIELDS = ["network", "mode", "dtype", "batch", "seq_len", "optimizer", "median_ms", "p10_ms", "p90_ms",
          "min_ms", "runs", "forward_backward_ms", "optimizer_ms", "kernels", "kernel_sum_ms", "busy_ms",
          "params", "ridge_command"]


def torchvision_model(name):
    def builder():
        import torchvision
        return getattr(torchvision.models, name)(), name
    builder.__name__ = name
    return builder


resnet50 = torchvision_model("resnet50")


def bert_base():
    from transformers import BertConfig, BertModel
    return BertModel(BertConfig()), "bert_base"


def bert_large():
    from transformers import BertConfig, BertModel
    return BertModel(BertConfig(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                                intermediate_size=4096)), "bert_large"


def gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel
    return GPT2LMHeadModel(GPT2Config()), "gpt2"


def gpt2_medium():
    from transformers import GPT2Config, GPT2LMHeadModel
    return GPT2LMHeadModel(GPT2Config(n_embd=1024, n_layer=24, n_head=16)), "gpt2_medium"


LLAMA_SET = dict(layers=8, hidden=2048, heads=16, kv_heads=16, intermediate=5504, vocab=32000)


def llama_2b():
    from transformers import LlamaConfig, LlamaForCausalLM
    s = LLAMA_SET
    config = LlamaConfig(hidden_size=s["hidden"], intermediate_size=s["intermediate"], num_hidden_layers=s["layers"],
                         num_attention_heads=s["heads"], num_key_value_heads=s["kv_heads"], vocab_size=s["vocab"],
                         max_position_embeddings=4096)
    return LlamaForCausalLM(config), "llama"


# (builder, batch, seq_len or None for images[, "nchw": images in PyTorch's default layout])
CASES = {
    "base": [
        (resnet50, 64, None), (resnet50, 256, None),
        (bert_base, 32, 128), (bert_base, 8, 512),
        (gpt2, 8, 1024),
        (llama_2b, 4, 2048),
    ],
    "blind": [
        (resnet50, 1, None), (resnet50, 8, None), (bert_base, 1, 128),
        (resnet50, 64, None, "nchw"), (resnet50, 256, None, "nchw"),
        (torchvision_model("efficientnet_b0"), 128, None), (torchvision_model("mobilenet_v2"), 128, None),
        (torchvision_model("vgg16"), 64, None), (torchvision_model("vit_b_16"), 64, None),
        (bert_large, 8, 512),
    ],
    # Ten torchvision networks no GPU here has run (issue #32's held-out check of everything modelled
    # since the blind set: the bias add, narrow convolutions, SDPA, pooling, depthwise backward),
    # predicted before they ran (validate/measured/h100-sxm5-2026-11-27-pm/network_predictions.csv).
    "blind2": [
        (torchvision_model("convnext_tiny"), 64, None), (torchvision_model("swin_t"), 64, None),
        (torchvision_model("densenet121"), 64, None), (torchvision_model("regnet_y_400mf"), 128, None),
        (torchvision_model("resnext50_32x4d"), 64, None), (torchvision_model("efficientnet_v2_s"), 32, None),
        (torchvision_model("mobilenet_v3_large"), 128, None), (torchvision_model("vit_l_16"), 32, None),
        (torchvision_model("resnet18"), 256, None), (torchvision_model("wide_resnet50_2"), 64, None),
    ],
    # Nine more no GPU here has run, for the next lease (predicted before it: validate/predictions/).
    # Among them the fused-GEMM-free small CNNs (SqueezeNet, ShuffleNet, MobileNet-v3-small), a VGG with
    # batch norm, ViT-B/32, EfficientNet-B3 at 300 x 300 and GPT-2 medium as Hugging Face runs it.
    "blind3": [
        (torchvision_model("efficientnet_b3"), 32, None), (torchvision_model("mobilenet_v3_small"), 256, None),
        (torchvision_model("shufflenet_v2_x2_0"), 128, None), (torchvision_model("squeezenet1_1"), 256, None),
        (torchvision_model("vgg16_bn"), 64, None), (torchvision_model("vit_b_32"), 128, None),
        (torchvision_model("resnet34"), 128, None), (torchvision_model("alexnet"), 256, None),
        (gpt2_medium, 4, 1024),
    ],
}
# Image sizes other than 224: each network at the size its zoo file (and torchvision's weights) use.
RESOLUTION = {"efficientnet_v2_s": 384, "efficientnet_b3": 300}
# Their recipes' optimizers: SGD with momentum for the CNNs, AdamW for the transformers and ViT.
SGD_NETWORKS = {"resnet50", "efficientnet_b0", "mobilenet_v2", "vgg16", "densenet121", "regnet_y_400mf",
                "resnext50_32x4d", "efficientnet_v2_s", "mobilenet_v3_large", "resnet18", "wide_resnet50_2",
                "efficientnet_b3", "mobilenet_v3_small", "shufflenet_v2_x2_0", "squeezenet1_1", "vgg16_bn", "resnet34",
                "alexnet"}


def network_name(zoo, layout="nhwc"):
    """A row's network: the zoo file's name (llama at reduced width: llama_2b), _nchw in PyTorch's default layout."""
    return (zoo if zoo != "llama" else "llama_2b") + ("_nchw" if layout == "nchw" else "")


def ridge_command(zoo, dtype, batch, seq, mode, layout="nhwc"):
    cmd = f"simulate models/{zoo}.net hw/<gpu>.hw --dtype {dtype} --batch {batch}"
    if seq:
        cmd += f" --set seq_len={seq}"
    if layout == "nchw":
        cmd += " --memory-format nchw"
    if zoo == "llama":
        cmd += "".join(f" --set {k}={v}" for k, v in LLAMA_SET.items())
    if mode == "train":
        cmd += " --pass train --optimizer " + ("sgd" if zoo in SGD_NETWORKS else "adamw")
        # As the step runs here: torch.optim's foreach update (PyTorch 2.x's default on CUDA), and in
        # bf16 no fp32 master weights or states (the model is cast with .to(bfloat16)). Rows recorded
        # before 2026-11-27's third H100 run left both out (measured_compare.py --as-run adds them).
        cmd += " --runtime pytorch-foreach" + (" --no-master-weights" if dtype == "bf16" else "")
    return cmd


def make_inputs(zoo, model, batch, seq, dtype, layout):
    if seq is None:
        size = RESOLUTION.get(zoo, 224)
        x = torch.randn(batch, 3, size, size, device=DEVICE, dtype=dtype)
        return (x if layout == "nchw" else x.to(memory_format=torch.channels_last),), {}
    vocab = model.config.vocab_size
    ids = torch.randint(0, vocab, (batch, seq), device=DEVICE)
    return (), {"input_ids": ids}


def first_tensor(out):
    if torch.is_tensor(out):
        return out
    if hasattr(out, "logits"):
        return out.logits
    return out[0]


def synchronize():
    if DEVICE == "cuda":
        torch.cuda.synchronize()


class Mark:
    """A point in the stream's time: a CUDA event on a GPU, the host clock on a CPU."""

    def __init__(self):
        if DEVICE == "cuda":
            self.event = torch.cuda.Event(enable_timing=True)
            self.event.record()
        else:
            self.t = time.perf_counter()

    def wait(self):
        if DEVICE == "cuda":
            self.event.synchronize()

    def ms_to(self, later):
        if DEVICE == "cuda":
            return self.event.elapsed_time(later.event)
        return (later.t - self.t) * 1e3


def profile_step(step, by_name=None):
    """Runs step() once under the profiler; returns (kernels, summed kernel ms, busy ms). With by_name (a
    dict), adds each kernel's name -> [launches, summed us] to it: where a network's time goes."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            trace = json.load(f)
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace   # PyTorch 1.x writes a bare list
    kernels = [e for e in events if e.get("cat") == "kernel" and "dur" in e]
    if by_name is not None:
        for e in kernels:
            entry = by_name.setdefault(e.get("name", "?"), [0, 0.0])
            entry[0] += 1
            entry[1] += e["dur"]
    spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in kernels)
    busy, end = 0.0, -1e30
    for s, e in spans:
        if s > end:
            busy += e - s
            end = e
        elif e > end:
            busy += e - end
            end = e
    return len(spans), sum(e - s for s, e in spans) / 1e3, busy / 1e3


def time_case(builder, batch, seq, dtype_name, mode, repeats, writer, layout="nhwc", breakdown=None):
    dtype = torch.bfloat16 if dtype_name == "bf16" else torch.float32
    torch.set_float32_matmul_precision("high")
    torch.backends.cudnn.allow_tf32 = True
    model, zoo = builder()
    params = sum(p.numel() for p in model.parameters())
    model = model.to(device=DEVICE, dtype=dtype)
    if seq is None and layout != "nchw":
        model = model.to(memory_format=torch.channels_last)
    args, kwargs = make_inputs(zoo, model, batch, seq, dtype, layout)
    optimizer_name = ""
    if mode == "inference":
        model.eval()

        def step():
            with torch.inference_mode():
                model(*args, **kwargs)
        parts = None
    else:
        model.train()
        if zoo in SGD_NETWORKS:
            opt, optimizer_name = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9), "sgd"
        else:
            opt, optimizer_name = torch.optim.AdamW(model.parameters(), lr=1e-4), "adamw"
        marks = []

        def step():
            opt.zero_grad(set_to_none=True)
            out = first_tensor(model(*args, **kwargs))
            out.float().mean().backward()
            marks.append(Mark())
            opt.step()
        parts = marks
    for _ in range(3):
        step()
    synchronize()
    times, fb, op = [], [], []
    for _ in range(repeats):
        if parts is not None:
            parts.clear()
        start = Mark()
        step()
        end = Mark()
        end.wait()
        times.append(start.ms_to(end))
        if parts:
            fb.append(start.ms_to(parts[0]))
            op.append(parts[0].ms_to(end))
    by_name = {} if breakdown is not None else None
    kernels, kernel_sum, busy = profile_step(step, by_name) if DEVICE == "cuda" else (0, 0.0, 0.0)
    times.sort()
    med = lambda xs: sorted(xs)[len(xs) // 2] if xs else ""
    q = lambda p: times[min(len(times) - 1, int(p * (len(times) - 1) + 0.5))]
    network = network_name(zoo, layout)
    row = dict(network=network, mode=mode, dtype=dtype_name, batch=batch, seq_len=seq or "",
               optimizer=optimizer_name, median_ms=f"{q(0.5):.3f}", p10_ms=f"{q(0.1):.3f}", p90_ms=f"{q(0.9):.3f}",
               min_ms=f"{times[0]:.3f}", runs=len(times),
               forward_backward_ms=f"{med(fb):.3f}" if fb else "", optimizer_ms=f"{med(op):.3f}" if op else "",
               kernels=kernels, kernel_sum_ms=f"{kernel_sum:.3f}", busy_ms=f"{busy:.3f}", params=params,
               ridge_command=ridge_command(zoo, dtype_name, batch, seq, mode, layout))
    writer.writerow(row)
    for name, (launches, us) in sorted((by_name or {}).items(), key=lambda kv: -kv[1][1]):
        breakdown.writerow(dict(network=network, mode=mode, dtype=dtype_name, batch=batch, seq_len=seq or "",
                                kernel=name, launches=launches, total_us=f"{us:.1f}"))
    print(f"{row['network']} {mode} {dtype_name} b={batch} s={seq}: {row['median_ms']} ms "
          f"(p10 {row['p10_ms']}, p90 {row['p90_ms']}), busy {row['busy_ms']} ms, {kernels} kernels", flush=True)
    del model, args, kwargs
    if DEVICE == "cuda":
        torch.cuda.empty_cache()


def case_rows(cases):
    """Every row a case set times, in the order main() times them: (network, mode, dtype, batch, seq, command)."""
    for dtype_name in ("bf16", "tf32"):
        for mode in ("inference", "train"):
            for builder, batch, seq, *layout in cases:
                zoo = "llama" if builder.__name__ == "llama_2b" else builder.__name__   # the zoo file's name
                lay = layout[0] if layout else "nhwc"
                yield network_name(zoo, lay), mode, dtype_name, batch, seq, ridge_command(zoo, dtype_name, batch, seq, mode, lay)


def predict(cases, hw, simulate, out):
    """Ridge's time for every row, before the GPU runs them (no GPU needed): the blind predictions."""
    import subprocess
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from measured_compare import network_command
    ns = argparse.Namespace(simulate=simulate, as_run=False)
    with open(out, "w", newline="") as f:
        writer = csv.writer(f)
        # kernel_model_ms and flat_model_ms: the GPU alone (against the busy time); eager_host_ms: the
        # kernel model under the Python host that issues the kernels (against the wall time).
        writer.writerow(["network", "mode", "dtype", "batch", "seq_len", "kernel_model_ms", "flat_model_ms", "eager_host_ms", "ridge_command"])
        for network, mode, dtype_name, batch, seq, command in case_rows(cases):
            times = []
            row = dict(ridge_command=command, mode=mode, dtype=dtype_name)
            for model, host in (("micro", False), ("flat", False), ("micro", True)):
                cmd = network_command(ns, row, hw, model, host=host)
                run = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)["runs"][0]
                times.append((run["time_train_step_s"] if mode == "train" else run["time_fwd_s"]) * 1e3)
            writer.writerow([network, mode, dtype_name, batch, seq or "", f"{times[0]:.3f}", f"{times[1]:.3f}", f"{times[2]:.3f}", command])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="one small case (a smoke test)")
    ap.add_argument("--cases", default="base", choices=sorted(CASES),
                    help="base: the H100's and H200's cases; blind, blind2, blind3: networks predicted before they ran (above)")
    ap.add_argument("--max-batch", type=int, default=0, help="cap every case's batch (a smoke test on a CPU)")
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"), help="cpu: a smoke test of this script")
    ap.add_argument("--only", nargs="*", default=[], help="only these networks of the case set")
    ap.add_argument("--breakdown", metavar="CSV", help="also write every profiled step's kernels by name (launches, summed us)")
    ap.add_argument("--predict", metavar="HW", help="write Ridge's prediction of every row on HW to --out instead (no GPU)")
    ap.add_argument("--simulate", default="build/simulate", help="with --predict: the simulate program")
    args = ap.parse_args()
    if args.predict:
        return predict(CASES[args.cases], args.predict, args.simulate, args.out)
    global DEVICE
    DEVICE = args.device
    if DEVICE == "cuda" and not torch.cuda.is_available():
        sys.exit("gpu_networks.py: no CUDA device")
    torch.manual_seed(0)
    cases = [(resnet50, 2, None), (bert_base, 2, 32)] if args.quick else CASES[args.cases]
    if args.max_batch:
        cases = [(c[0], min(c[1], args.max_batch), min(c[2], 32) if c[2] else None, *c[3:]) for c in cases]
    if args.only:
        cases = [c for c in cases if c[0].__name__ in args.only]
    breakdown = None
    if args.breakdown:
        breakdown_file = open(args.breakdown, "w", newline="")
        breakdown = csv.DictWriter(breakdown_file, fieldnames=["network", "mode", "dtype", "batch", "seq_len", "kernel",
                                                                "launches", "total_us"])
        breakdown.writeheader()
    start = time.time()
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        for dtype_name in ("bf16", "tf32"):
            for mode in ("inference", "train"):
                for builder, batch, seq, *layout in cases:
                    try:
                        time_case(builder, batch, seq, dtype_name, mode, args.repeats, writer, *layout, breakdown=breakdown)
                    except Exception as e:   # one case's failure (memory, a missing package) keeps the others
                        print(f"{builder.__name__} {mode} {dtype_name} b={batch}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
                              file=sys.stderr, flush=True)
                    f.flush()
                    if breakdown is not None:
                        breakdown_file.flush()
    print(f"gpu_networks.py: done in {time.time() - start:.1f} s", flush=True)


if __name__ == "__main__":
    main()
