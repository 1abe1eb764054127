#!/usr/bin/env python3
"""Times single GPU kernels the way nvbench does, as ground truth for the GPU kernel model (issue #40).

What it measures, on the device PyTorch sees (CUDA events around each run, the L2 written between
runs so that every run reads its operands from memory, warm-up first):
  - GEMMs per precision (bf16, fp16, tf32, fp32) over shapes chosen where the kernel model's tile and
    wave predictions change: squares, a sweep of partial waves, small K, split-K candidates, skinny
    (decode) products and the GEMMs of a Llama-7B layer;
  - attention (scaled_dot_product_attention forward and backward; default, flash and cuDNN backends);
  - elementwise, normalisation and softmax kernels by size, and layer norm and softmax by row width;
  - Swin's window partition (a reshape PyTorch must copy) beside a plain copy of the same tensor;
  - a few convolutions (dense and depthwise) of ResNet-50 and EfficientNet, and the backward of some
    apart (input gradient, weight gradient).

One CSV row per case: group,op,dtype,m,n,k,batch,extra,flops,bytes,median_us,p10_us,p90_us,min_us,runs.
Each row is written as soon as it is measured, so a run stopped early keeps what it measured.

    python3 validate/scripts/gpu_kernels.py --out kernels.csv [--quick]
"""
import argparse
import csv
import math
import sys
import time

import torch
import torch.nn.functional as F

DEVICE = "cuda"   # --device cpu: a smoke test of the script itself on a machine without a GPU
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "tf32": torch.float32, "fp32": torch.float32}
SIZE = {torch.bfloat16: 2, torch.float16: 2, torch.float32: 4}


class Timer:
    """Times fn() on one CUDA stream: a flush of L2 before each run (outside the events), events around it."""

    def __init__(self, target_s=0.03, min_runs=5, max_runs=50, flush_bytes=512 << 20):
        self.target_s, self.min_runs, self.max_runs = target_s, min_runs, max_runs
        self.flush = torch.empty(flush_bytes, dtype=torch.uint8, device=DEVICE)

    def __call__(self, fn, warmup=3):
        for _ in range(warmup):
            fn()
        synchronize()
        probe = self._runs(fn, 1)[0]
        runs = max(self.min_runs, min(self.max_runs, int(self.target_s / max(probe, 1e-6))))
        times = sorted(self._runs(fn, runs))
        q = lambda p: times[min(len(times) - 1, int(p * (len(times) - 1) + 0.5))]
        return {"median_us": q(0.5) * 1e6, "p10_us": q(0.1) * 1e6, "p90_us": q(0.9) * 1e6,
                "min_us": times[0] * 1e6, "runs": len(times)}

    def _runs(self, fn, n):
        if DEVICE == "cpu":
            times = []
            for _ in range(n):
                self.flush.zero_()
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
            return times
        events = []
        for _ in range(n):
            self.flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            events.append((start, end))
        torch.cuda.synchronize()
        return [s.elapsed_time(e) * 1e-3 for s, e in events]


def synchronize():
    if DEVICE == "cuda":
        torch.cuda.synchronize()


class Writer:
    FIELDS = ["group", "op", "dtype", "m", "n", "k", "batch", "extra", "flops", "bytes",
              "median_us", "p10_us", "p90_us", "min_us", "runs"]

    def __init__(self, path):
        self.file = open(path, "w", newline="")
        self.csv = csv.DictWriter(self.file, fieldnames=self.FIELDS)
        self.csv.writeheader()
        self.count = 0

    def row(self, **fields):
        out = {k: fields.get(k, "") for k in self.FIELDS}
        for k in ("median_us", "p10_us", "p90_us", "min_us"):
            out[k] = f"{fields[k]:.3f}"
        self.csv.writerow(out)
        self.file.flush()
        self.count += 1


def set_matmul_precision(dtype_name):
    # tf32: what torch.backends.cuda.matmul.allow_tf32 (or 'high') gives a user; fp32: full precision.
    torch.set_float32_matmul_precision("high" if dtype_name == "tf32" else "highest")
    torch.backends.cudnn.allow_tf32 = dtype_name == "tf32"


def gemm_shapes(dtype_name, quick):
    if quick:
        return [("square", 256, 256, 256), ("small_k", 512, 512, 64), ("skinny", 1, 512, 512)]
    shapes = []
    squares = [256, 512, 1024, 2048, 4096, 8192] + ([16384] if dtype_name in ("bf16", "fp16") else [])
    shapes += [("square", s, s, s) for s in squares]
    # Partial waves: output tiles grow through 1..8 waves of 132 SMs at K = 4096.
    shapes += [("waves", s, s, 4096) for s in range(1536, 4097, 256)]
    # Small K: little work per output tile, so the epilogue and prologue weigh.
    shapes += [("small_k", 8192, 8192, k) for k in (64, 128, 256, 512, 1024)]
    # Few output tiles, long K: where cuBLAS splits K.
    shapes += [("split_k", mn, mn, k) for mn in (256, 512) for k in (8192, 32768)]
    # Skinny: decode's token rows against a 4096-wide weight (Llama-7B's q projection).
    if dtype_name in ("bf16", "fp16"):
        shapes += [("skinny", m, 4096, 4096) for m in (1, 8, 16, 32, 64, 128, 256)]
        shapes += [("skinny", m, 11008, 4096) for m in (1, 16, 128)]
    # A Llama-7B layer at 4096 tokens: qkv, o, gate/up, down.
    shapes += [("llama7b", 4096, n, k) for n, k in ((12288, 4096), (4096, 4096), (11008, 4096), (4096, 11008))]
    # Dimensions that are not a multiple of 8 (16 bytes at 16 bits): GPT-2's lm_head (vocabulary 50,257)
    # beside nanoGPT's padded 50,304, and an odd K. cuBLAS falls back to alignment-1 kernels for them
    # (seen on the H200 in calibrate's records, never timed alone: validate/measured/h200-sxm-2026-11-26).
    shapes += [("unaligned", 8192, n, 768) for n in (50257, 50304)] + [("unaligned", 4096, 4096, k) for k in (4095, 4096)]
    return shapes


def alignment_shapes(dtype_name, quick):
    """Probes of the kernel model's alignment-1 fallback (engine/kernels/gemm.cpp), chosen after the
    model was committed and timed after it: which dimensions count (an odd M never; N or K not whole
    16-byte vectors always), 4-element multiples (whole vectors at tf32's 4 bytes, not at 16 bits),
    other sizes and vocabularies, and the matrix-vector side (M under one tile keeps the regular model)."""
    if quick:
        return [("alignment", 256, 257, 256)]
    return [("alignment", m, n, k) for m, n, k in (
        (4095, 4096, 4096), (4096, 4097, 4096), (4096, 4100, 4096), (4096, 4096, 4100),
        (2048, 2048, 2047), (8192, 8192, 8191), (1024, 50257, 768), (128, 50257, 768), (32, 50257, 768),
        (4096, 30522, 768), (4096, 32000, 4096), (4096, 50257, 1600))]


def run_alignment(timer, writer, quick):
    run_gemms(timer, writer, quick, shapes=alignment_shapes, dtypes=("bf16", "fp16", "tf32"))


def run_gemms(timer, writer, quick, shapes=gemm_shapes, dtypes=("bf16", "fp16", "tf32", "fp32")):
    for dtype_name in dtypes:
        dtype = DTYPES[dtype_name]
        set_matmul_precision(dtype_name)
        for extra, m, n, k in shapes(dtype_name, quick):
            if dtype_name == "fp32" and m * n * k > 8192 ** 3:
                continue
            a = torch.randn(m, k, device=DEVICE, dtype=dtype)
            b = torch.randn(k, n, device=DEVICE, dtype=dtype)
            t = timer(lambda: torch.matmul(a, b))
            writer.row(group="gemm", op="matmul", dtype=dtype_name, m=m, n=n, k=k, batch=1, extra=extra,
                       flops=2 * m * n * k, bytes=(m * k + k * n + m * n) * SIZE[dtype], **t)
            del a, b
    set_matmul_precision("tf32")


def sdpa_backends():
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        return [("default", None)]
    return [("default", None), ("flash", lambda: sdpa_kernel(SDPBackend.FLASH_ATTENTION)),
            ("cudnn", lambda: sdpa_kernel(SDPBackend.CUDNN_ATTENTION)),
            ("efficient", lambda: sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION))]


def run_attention(timer, writer, quick, dtype_name="bf16", configs=None, backends=None):
    import contextlib
    if configs is None:
        configs = [(4, 32, s, 128) for s in (512, 1024, 2048, 4096, 8192)]     # Llama-7B heads
        configs += [(32, 12, s, 64) for s in (128, 512, 1024)]                # BERT-base / GPT-2 heads
    if quick:
        configs = configs[:2]
    dtype = DTYPES[dtype_name]
    set_matmul_precision(dtype_name)
    for backend, context in sdpa_backends():
        if backends is not None and backend not in backends:
            continue
        for causal in (False, True):
            for b, h, s, d in configs:
                q, k, v = (torch.randn(b, h, s, d, device=DEVICE, dtype=dtype, requires_grad=True) for _ in range(3))
                dense = 4 * b * h * s * s * d
                flops = dense // 2 if causal else dense
                io = 4 * b * h * s * d * SIZE[dtype]    # q, k, v read, o written
                ctx = context() if context else contextlib.nullcontext()
                try:
                    with ctx:
                        fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        t = timer(fwd)
                        writer.row(group="attention", op="sdpa_forward", dtype=dtype_name, m=s, n=s, k=d, batch=b * h,
                                   extra=f"{backend};causal={int(causal)};heads={h}", flops=flops, bytes=io, **t)
                        out = fwd()
                        grad = torch.randn_like(out)
                        bwd = lambda: torch.autograd.grad(out, (q, k, v), grad, retain_graph=True)
                        t = timer(bwd)
                        writer.row(group="attention", op="sdpa_backward", dtype=dtype_name, m=s, n=s, k=d, batch=b * h,
                                   extra=f"{backend};causal={int(causal)};heads={h}", flops=int(2.5 * flops),
                                   bytes=2 * io, **t)
                        del out, grad
                except RuntimeError as e:   # a backend that refuses the shape or the machine
                    print(f"attention {backend} {dtype_name} b={b} h={h} s={s} d={d}: {str(e).splitlines()[0]}", file=sys.stderr)
                del q, k, v
    set_matmul_precision("tf32")


def run_attention_fp32(timer, writer, quick):
    """fp32 tensors with TF32 allowed, as the tf32 network rows ran: SDPA cannot take the flash kernel in
    fp32 and picks the memory-efficient one (the second H100's BERT-large and ViT-B/16 tf32 rows sat
    between the materialized and the flash models; validate/measured/h100-sxm5-2026-11-27). Shorter
    sequences than the bf16 sweep: fp32 attention is several times slower."""
    configs = [(4, 32, s, 128) for s in (512, 1024, 2048)] + [(32, 12, s, 64) for s in (128, 512, 1024)]
    run_attention(timer, writer, quick, dtype_name="tf32", configs=configs, backends=("default", "efficient"))


def run_streaming(timer, writer, quick):
    width = 4096
    sizes = [1 << p for p in range(16, 29, 2)]
    if quick:
        sizes = sizes[:2]
    for dtype_name in ("bf16", "fp32"):
        dtype = DTYPES[dtype_name]
        es = SIZE[dtype]
        for n in sizes:
            x = torch.randn(n, device=DEVICE, dtype=dtype)
            y = torch.randn(n, device=DEVICE, dtype=dtype)
            rows = torch.randn(n // width, width, device=DEVICE, dtype=dtype)
            w = torch.ones(width, device=DEVICE, dtype=dtype)
            bias = torch.zeros(width, device=DEVICE, dtype=dtype)
            cases = [
                ("add", lambda: x + y, 3, 1),
                ("mul_scalar", lambda: x * 0.5, 2, 1),
                ("relu", lambda: F.relu(x), 2, 1),
                ("gelu", lambda: F.gelu(x), 2, 8),
                ("silu", lambda: F.silu(x), 2, 4),
                ("copy", lambda: x.clone(), 2, 0),
                ("layer_norm", lambda: F.layer_norm(rows, (width,), w, bias), 2, 8),
                ("softmax", lambda: torch.softmax(rows, dim=-1), 2, 5),
            ]
            if hasattr(F, "rms_norm"):
                cases.append(("rms_norm", lambda: F.rms_norm(rows, (width,), w), 2, 4))
            for op, fn, tensors, flops_per in cases:
                t = timer(fn)
                writer.row(group="streaming", op=op, dtype=dtype_name, m=n, n=width if op in ("layer_norm", "softmax", "rms_norm") else 1,
                           k=1, batch=1, extra="", flops=flops_per * n, bytes=tensors * n * es, **t)
            del x, y, rows


def run_row_widths(timer, writer, quick):
    """Row kernels at the widths of vision transformers' and ConvNeXt's norms (96-768 channels) and up:
    the third H100 run found PyTorch's layer norm at 1.25-1.28 ns per row at 96-768 channels, where the
    model gives it the bandwidth of a 4,096-wide row (docs/results/2026-11-27-h100-third-run.md). The
    same 2^24 elements (Swin-T's first stage at batch 64 is 19 M) as rows of each width."""
    elements = 1 << 24
    widths = (64, 96, 128, 192, 384, 768, 1024, 2048, 4096)
    if quick:
        elements, widths = 1 << 16, widths[:2]
    for dtype_name in ("bf16", "fp32"):
        dtype = DTYPES[dtype_name]
        es = SIZE[dtype]
        for width in widths:
            rows = torch.randn(elements // width, width, device=DEVICE, dtype=dtype)
            w = torch.ones(width, device=DEVICE, dtype=dtype)
            bias = torch.zeros(width, device=DEVICE, dtype=dtype)
            n = rows.numel()
            for op, fn, flops_per in (("layer_norm", lambda: F.layer_norm(rows, (width,), w, bias), 8),
                                      ("softmax", lambda: torch.softmax(rows, dim=-1), 5)):
                t = timer(fn)
                writer.row(group="row_widths", op=op, dtype=dtype_name, m=n, n=width, k=1, batch=1, extra="",
                           flops=flops_per * n, bytes=2 * n * es, **t)
            del rows


def run_window_copies(timer, writer, quick):
    """Swin's window partition as torchvision writes it, x.view(B, 8, 7, 8, 7, C).permute(0, 1, 3, 2, 4, 5)
    .reshape(B * 64, 49, C): the copy PyTorch makes because the reshape cannot be a view, beside a
    contiguous clone of the same tensor (engine/layout.hpp charges the copy at the streaming rate; the
    third H100 run's permuted copies ran at about half of it)."""
    cases = [(64, 96), (64, 192), (256, 96)] if not quick else [(2, 96)]
    for dtype_name in ("bf16", "fp32"):
        dtype = DTYPES[dtype_name]
        es = SIZE[dtype]
        for b, c in cases:
            x = torch.randn(b, 56, 56, c, device=DEVICE, dtype=dtype)
            n = x.numel()
            for op, fn in (("window_partition", lambda: x.view(b, 8, 7, 8, 7, c).permute(0, 1, 3, 2, 4, 5).reshape(b * 64, 49, c)),
                           ("copy", lambda: x.clone())):
                t = timer(fn)
                writer.row(group="window_copies", op=op, dtype=dtype_name, m=n, n=c, k=1, batch=b, extra="56x56",
                           flops=0, bytes=2 * n * es, **t)
            del x


def run_convs(timer, writer, quick):
    # (name, batch, in_ch, out_ch, hw, kernel, stride, groups): ResNet-50 and EfficientNet-B0 layers.
    convs = [
        ("resnet50.conv1", 64, 3, 64, 224, 7, 2, 1),
        ("resnet50.layer1.conv2", 64, 64, 64, 56, 3, 1, 1),
        ("resnet50.layer1.conv3", 64, 64, 256, 56, 1, 1, 1),
        ("resnet50.layer3.conv2", 64, 256, 256, 14, 3, 1, 1),
        ("resnet50.layer4.conv2", 64, 512, 512, 7, 3, 1, 1),
        ("efficientnet_b0.dw3x3", 64, 96, 96, 112, 3, 2, 96),
        ("efficientnet_b0.dw5x5", 64, 240, 240, 28, 5, 1, 240),
        ("efficientnet_b0.dw3x3_s1", 64, 480, 480, 14, 3, 1, 480),
        # VGG-16's 3x3 convolutions at batch 32, where few input channels meet many positions (its
        # early layers ran 30-50 % slower than the kernel model on the second H100, beside their bias
        # kernels; validate/measured/h100-sxm5-2026-11-27/layers/).
        ("vgg16.stage1.conv2", 32, 64, 64, 224, 3, 1, 1),
        ("vgg16.stage2.conv1", 32, 64, 128, 112, 3, 1, 1),
        ("vgg16.stage3.conv1", 32, 128, 256, 56, 3, 1, 1),
        ("vgg16.stage4.conv1", 32, 256, 512, 28, 3, 1, 1),
    ]
    if quick:
        convs = [c[:1] + (2,) + c[2:] for c in convs[1:2] + convs[5:6]]
    for dtype_name in ("bf16", "tf32"):
        dtype = DTYPES[dtype_name]
        set_matmul_precision(dtype_name)
        for name, b, cin, cout, hw, kern, stride, groups in convs:
            x = torch.randn(b, cin, hw, hw, device=DEVICE, dtype=dtype).to(memory_format=torch.channels_last)
            w = torch.randn(cout, cin // groups, kern, kern, device=DEVICE, dtype=dtype).to(memory_format=torch.channels_last)
            pad = kern // 2
            out_hw = (hw + 2 * pad - kern) // stride + 1
            t = timer(lambda: F.conv2d(x, w, stride=stride, padding=pad, groups=groups))
            flops = 2 * b * cout * out_hw * out_hw * (cin // groups) * kern * kern
            io = (x.numel() + w.numel() + b * cout * out_hw * out_hw) * SIZE[dtype]
            writer.row(group="conv", op="conv2d", dtype=dtype_name, m=b * out_hw * out_hw, n=cout,
                       k=(cin // groups) * kern * kern, batch=b, extra=f"{name};groups={groups};channels_last",
                       flops=flops, bytes=io, **t)
            del x, w
    set_matmul_precision("tf32")


def run_conv_backward(timer, writer, quick):
    # A convolution's backward as its two kernels, apart: the input gradient and the weight gradient
    # (aten::convolution_backward with one output asked for at a time). MobileNet-v2's depthwise
    # backward ran 38-49 % slower than the model on three GPUs, its weight gradient the same time on
    # an H100 and an H200 (docs/results/2026-11-27-depthwise-backward.md): which of the two, and how
    # it grows with the window and the batch, settles what the model should say. ResNet-50's stem
    # (3 channels, CUDA cores forward) and one dense 3x3 beside them.
    convs = [
        ("efficientnet_b0.dw3x3", 96, 112, 3, 2, 96),
        ("efficientnet_b0.dw3x3_s1", 480, 14, 3, 1, 480),
        ("efficientnet_b0.dw5x5", 240, 28, 5, 1, 240),
        ("mobilenet_v2.dw3x3", 144, 56, 3, 1, 144),
        ("resnet50.conv1", 3, 224, 7, 2, 1),
        ("resnet50.layer1.conv2", 64, 56, 3, 1, 1),
    ]
    batches = (2,) if quick else (32, 64)
    if quick:
        convs = convs[:1]
    for dtype_name in ("bf16", "tf32"):
        dtype = DTYPES[dtype_name]
        set_matmul_precision(dtype_name)
        for name, cin, hw, kern, stride, groups in convs:
            cout = 64 if name == "resnet50.conv1" else cin
            for b in batches:
                x = torch.randn(b, cin, hw, hw, device=DEVICE, dtype=dtype).to(memory_format=torch.channels_last)
                w = torch.randn(cout, cin // groups, kern, kern, device=DEVICE, dtype=dtype).to(memory_format=torch.channels_last)
                pad = kern // 2
                out_hw = (hw + 2 * pad - kern) // stride + 1
                dy = torch.randn(b, cout, out_hw, out_hw, device=DEVICE, dtype=dtype).to(memory_format=torch.channels_last)
                flops = 2 * b * cout * out_hw * out_hw * (cin // groups) * kern * kern
                for op, mask in (("conv2d_grad_input", [True, False, False]), ("conv2d_grad_weight", [False, True, False])):
                    t = timer(lambda: torch.ops.aten.convolution_backward(dy, x, w, None, [stride, stride], [pad, pad], [1, 1],
                                                                          False, [0, 0], groups, mask))
                    io = (dy.numel() + (w.numel() if mask[0] else x.numel()) + (x.numel() if mask[0] else w.numel())) * SIZE[dtype]
                    writer.row(group="conv_backward", op=op, dtype=dtype_name, m=b * out_hw * out_hw, n=cout,
                               k=(cin // groups) * kern * kern, batch=b, extra=f"{name};groups={groups};channels_last",
                               flops=flops, bytes=io, **t)
                del x, w, dy
    set_matmul_precision("tf32")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="a few cases of each group (a smoke test)")
    ap.add_argument("--groups", default="gemm,attention,streaming,conv,alignment,attention_fp32,conv_backward,row_widths,window_copies")
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"), help="cpu: a smoke test of this script")
    args = ap.parse_args()
    global DEVICE
    DEVICE = args.device
    if DEVICE == "cuda" and not torch.cuda.is_available():
        sys.exit("gpu_kernels.py: no CUDA device")
    torch.manual_seed(0)
    timer = Timer(target_s=0.01 if args.quick else 0.03, flush_bytes=(512 << 20) if DEVICE == "cuda" else (64 << 20))
    writer = Writer(args.out)
    start = time.time()
    groups = {"gemm": run_gemms, "attention": run_attention, "streaming": run_streaming, "conv": run_convs,
              "alignment": run_alignment, "attention_fp32": run_attention_fp32, "conv_backward": run_conv_backward,
              "row_widths": run_row_widths, "window_copies": run_window_copies}
    for name in args.groups.split(","):
        t0 = time.time()
        try:
            groups[name](timer, writer, args.quick)
        except Exception as e:   # one group's failure keeps the others' rows
            print(f"{name}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        print(f"{name}: done in {time.time() - t0:.1f} s ({writer.count} rows so far)", flush=True)
    print(f"gpu_kernels.py: {writer.count} rows in {time.time() - start:.1f} s", flush=True)


if __name__ == "__main__":
    main()
