#!/usr/bin/python3
"""Every model a user has (issue #38): walks torchvision's catalogue (classification, segmentation,
video; each built with weights=None) through three routes into Ridge and compares Ridge's parameter
count with torch's own, sum(p.numel() for p in model.parameters()).

  nice validate/scripts/torchvision_walk.py [--only NAME ...] [--routes from_torch,static,preserve]
                                            [--out walk.csv] [--timeout 1800]
  validate/scripts/torchvision_walk.py --tables walk.csv      # the markdown tables of an earlier run
  validate/scripts/torchvision_walk.py --tables walk.csv --check   # and exit 1 where a check fails

Routes:
  from_torch  ridge.from_torch(model, example): in memory, batch axis dynamic, batch norms preserved.
  static      torch.onnx.export(model, example, path) with every default (static batch 1, constant
              folding, eval mode, torch's default opset), then ridge.network(path).
  preserve    torch.onnx.export(..., training=TrainingMode.PRESERVE, do_constant_folding=False) on the
              eval() model, then ridge.network(path).

Every parameter and floating-point buffer gets small random noise before any export: a freshly built
model holds equal-valued tensors (layer norms, layer scales, batch-norm statistics) that the exporter
merges into one initializer when the model is not training (docs/onnx.md), which a trained model's
export would not do. Input sizes: the DEFAULT weights' transforms' crop size (224 for most, 299 for
Inception v3, 240-600 for EfficientNet, 256 for Swin v2, 384 for EfficientNet v2-S ...) unless the
model is built for a fixed size (ViT: its image_size, 224 without weights); segmentation 520x520 (the
weights' resize size); video 3x16xHxW with the weights' crop size (112 for the ResNet-3D family, 224
for S3D and MViT). torchvision 0.14's weights enums carry num_params but no "_ops" (GFLOPS): the
published figures come from validate/torchvision_published.csv (each DEFAULT weights enum's
num_params and _ops in torchvision's later sources, with its file), and a model's MACs are compared
with them where the walk's input is the published one, to half a unit of the last published digit.

--check (with a walk, or --tables) exits 1 unless every model the issue asks for (all but MViT, which
issue #38 does not list) imports through from_torch with exactly torch's parameters (or those its
eval forward uses), at the published MACs; the static and preserve exports may fail only in torch's
exporter. ctest runs the whole walk with --check as `torchvision_walk` (label slow, not in CI:
ctest --test-dir build -L slow -R torchvision_walk).

Each model runs in a child process (a crash, an out-of-memory kill or a timeout fails that model
only); rows are appended to the CSV as they finish. The whole catalogue took 25 minutes on two cores
(2026-11-27), which is why CI leaves its ctest test out. Needs Debian's python3-torch and python3-torchvision and the module
built in build/python (found from this file's location, or PYTHONPATH).
"""
import argparse
import csv
import inspect
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
import weakref

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ROUTES = ["from_torch", "static", "preserve"]
DEVICE = "a100-sxm4-40gb"   # any device: parameters and MACs do not depend on it
PUBLISHED = os.path.join(ROOT, "validate", "torchvision_published.csv")
NOT_ASKED = ("mvit_v1_b", "mvit_v2_s")   # issue #38 lists R3D, MC3, R(2+1)D and S3D of the video models
COLUMNS = ["family", "model", "input", "torch_params", "torch_params_run", "bn_folded", "route", "status", "ridge_params",
           "param_diff", "ridge_gmacs", "seconds", "error"]


def catalogue():
    """(name, family) for every classification, segmentation and video model torchvision lists."""
    import torchvision.models as m

    names = []
    for module in (m, m.segmentation, m.video):
        if hasattr(m, "list_models"):
            listed = m.list_models(module=module)
        else:   # torchvision before 0.14: the builders a module exports
            listed = sorted(k for k, v in vars(module).items()
                            if callable(v) and k.islower() and not k.startswith("_") and "weights" not in k)
        names += [n for n in listed if n not in names]
    return [(n, family(n)) for n in names]


def family(name):
    import torchvision.models as m

    module = m.get_model_builder(name).__module__.replace("torchvision.models.", "")
    return module   # resnet (ResNet, ResNeXt, Wide ResNet), efficientnet (B0-B7, V2), segmentation.fcn, video.resnet ...


def default_weights(name):
    import torchvision.models as m

    try:
        return m.get_model_weights(name).DEFAULT
    except Exception:
        return None


def example_shape(name, fam, model):
    w = default_weights(name)
    keywords = dict(getattr(w.transforms, "keywords", {})) if w is not None else {}
    if fam.startswith("segmentation"):
        side = keywords.get("resize_size", 520)
        side = side[0] if isinstance(side, (tuple, list)) else side
        return (1, 3, side, side)
    crop = keywords.get("crop_size", 224)
    h, wd = (crop[0], crop[-1]) if isinstance(crop, (tuple, list)) else (crop, crop)
    if fam.startswith("video"):
        return (1, 3, 16, h, wd)
    if hasattr(model, "image_size"):   # ViT: positional embeddings for the size it was built for
        h = wd = model.image_size
    return (1, 3, h, wd)


def build(name, fam):
    import torchvision.models as m

    kwargs = {"weights": None}
    if fam.startswith("segmentation"):
        kwargs["weights_backbone"] = None   # the default backbone weights would be downloaded
        # FCN's and DeepLabV3's published weights carry the auxiliary classifier (their builders set
        # aux_loss when given weights), and so do their published parameters and GFLOPS; its head runs
        # in the eval forward too (the model returns "out" and "aux").
        if "aux_loss" in inspect.signature(m.get_model_builder(name)).parameters:
            kwargs["aux_loss"] = True
    return m.get_model(name, **kwargs)


def randomise(model):
    """Small noise on every parameter and floating-point buffer, so that no two hold equal values."""
    import torch

    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.01)
        for b in model.buffers():
            if b.is_floating_point():
                b.add_(torch.rand_like(b) * 0.01)   # running variances stay positive


def params_run(model, x):
    """The parameters the eval forward uses: those that get a gradient from its outputs (Inception's
    and GoogLeNet's auxiliary heads run only in training: torch counts them, a graph of the eval
    forward cannot); and how many of them a static (eval, constant-folded) export folds away: a batch
    norm applied straight to a convolution's output becomes that convolution's bias, C parameters
    left of its 2C (2C when the convolution had a bias already)."""
    import torch

    conv_out = {}
    folded = [0]

    def pre(mod, a):
        seen = conv_out.get(id(a[0])) if a and isinstance(mod, torch.nn.modules.batchnorm._BatchNorm) else None
        if seen is not None and seen[0]() is a[0]:
            conv = seen[1]
            folded[0] += mod.num_features * (1 if conv.bias is None else 2) if mod.affine else 0

    def post(mod, a, out):
        if isinstance(mod, torch.nn.modules.conv._ConvNd) and isinstance(out, torch.Tensor):
            conv_out[id(out)] = (weakref.ref(out), mod)

    def tensors(out):
        if isinstance(out, torch.Tensor):
            return [out]
        if isinstance(out, dict):
            out = list(out.values())
        return [t for o in out for t in tensors(o)] if isinstance(out, (tuple, list)) else []

    hooks = [mod.register_forward_pre_hook(pre) for mod in model.modules()]
    hooks += [mod.register_forward_hook(post) for mod in model.modules()]
    params = list(model.parameters())
    try:
        with torch.enable_grad():
            out = sum(t.float().sum() for t in tensors(model(x)))
            grads = torch.autograd.grad(out, params, allow_unused=True)
    finally:
        for h in hooks:
            h.remove()
    run = sum(p.numel() for p, g in zip(params, grads) if g is not None)
    return run, folded[0]


def first_line(e):
    text = str(e).strip()
    line = text.splitlines()[0] if text else ""
    return f"{type(e).__name__}: {line}"[:300]


def run_one(name, fam, routes):
    """One model through the routes asked for: a list of row dicts (run in a child process)."""
    import torch
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))
    import ridge

    torch.manual_seed(0)
    torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS", "1"))))
    model = build(name, fam).eval()
    randomise(model)
    shape = example_shape(name, fam, model)
    x = torch.randn(*shape)
    tparams = sum(p.numel() for p in model.parameters())
    try:
        trun, folded = params_run(model, x)
    except Exception:
        trun, folded = "", ""
    rows = []
    for route in routes:
        row = {"family": fam, "model": name, "input": "x".join(map(str, shape[1:])), "torch_params": tparams,
               "torch_params_run": trun, "bn_folded": folded, "route": route, "status": "failed", "ridge_params": "", "param_diff": "",
               "ridge_gmacs": "", "seconds": "", "error": ""}
        start = time.time()
        stage = "export"
        try:
            with tempfile.TemporaryDirectory() as tmp:
                if route == "from_torch":
                    stage = "from_torch"
                    net = ridge.from_torch(model, x, name=name)
                else:
                    path = os.path.join(tmp, name + ".onnx")
                    model.eval()
                    if route == "static":
                        torch.onnx.export(model, x, path)
                    else:
                        torch.onnx.export(model, x, path, training=torch.onnx.TrainingMode.PRESERVE,
                                          do_constant_folding=False)
                    stage = "import"
                    net = ridge.network(path)
                stage = "simulate"
                result = ridge.simulate(net, DEVICE, batch=1, layers=False)
            p = int(result.total("params"))
            row.update(status="ok", ridge_params=p, param_diff=p - tparams,
                       ridge_gmacs=f"{result.total('macs') / 1e9:.4f}")
        except Exception as e:
            row["error"] = f"{stage}: {first_line(e)}"
        row["seconds"] = f"{time.time() - start:.1f}"
        rows.append(row)
    return rows


def child(args):
    try:
        rows = run_one(args.child, family(args.child), args.routes)
    except Exception as e:   # the model itself does not build or run
        traceback.print_exc(file=sys.stderr)
        rows = [{"model": args.child, "family": family(args.child), "route": r, "status": "failed",
                 "error": f"build: {first_line(e)}"} for r in args.routes]
    print("ROWS " + json.dumps(rows), flush=True)


def in_child(name, fam, routes, timeout):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", name, "--routes", ",".join(routes)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [{"model": name, "family": fam, "route": r, "status": "failed",
                 "error": f"timeout: more than {timeout} s for the routes together"} for r in routes]
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("ROWS "):
            return json.loads(line[5:])
    tail = (done.stderr.strip().splitlines() or [""])[-1][:300]
    return [{"model": name, "family": fam, "route": r, "status": "failed",
             "error": f"crash: exit {done.returncode} {tail}"} for r in routes]


def cell(rows, route):
    """exact: torch's count; "exact (eval)": the parameters the eval forward uses (auxiliary heads
    left out); "exact (BN folded)": those less what the static export folds; else Ridge minus torch."""
    r = rows.get(route)
    if r is None:
        return "-"
    if r["status"] != "ok":
        return "failed"
    d = int(r["param_diff"])
    if d == 0:
        return "exact"
    p, run, folded = int(r["ridge_params"]), str(r.get("torch_params_run", "")), str(r.get("bn_folded", ""))
    if run and p == int(run):
        return "exact (eval)"
    if run and folded and route == "static" and p == int(run) - int(folded):
        return "exact (BN folded)" if int(run) == int(r["torch_params"]) else "exact (eval, BN folded)"
    return f"{d:+,}"


def published():
    """model -> its published row (validate/torchvision_published.csv)."""
    if not os.path.exists(PUBLISHED):
        return {}
    return {r["model"]: r for r in read_csv(PUBLISHED)}


def half_unit(text):
    """Half a unit of the last digit of a published figure: "4.089" -> 0.0005."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10 ** -decimals


def macs_cell(rows, pub):
    """Ridge's MACs against the published GFLOPS, where the walk ran at the published input."""
    gm = sorted({r["ridge_gmacs"] for r in rows.values() if r.get("status") == "ok" and r.get("ridge_gmacs")})
    p = pub.get(next(iter(rows.values()))["model"]) if rows else None
    if not p or not p.get("gflops"):
        return "-", None
    if p.get("input") and any(r.get("input") and r["input"] != p["input"] for r in rows.values()):
        return f"{p['gflops']} (at {p['input']})", None
    if not gm:
        return p["gflops"], None
    ok = all(abs(float(g) - float(p["gflops"])) <= half_unit(p["gflops"]) + 5e-5 for g in gm)
    return f"{p['gflops']} ({'same' if ok else 'differs'})", ok


def checks(all_rows):
    """What --check refuses, one line each."""
    failures = []
    pub = published()
    by = {}
    for r in all_rows:
        by.setdefault(r["model"], {})[r["route"]] = r
    for model, rows in sorted(by.items()):
        if model in NOT_ASKED:
            continue
        if "from_torch" in rows and cell(rows, "from_torch") not in ("exact", "exact (eval)"):
            failures.append(f"{model}: from_torch {cell(rows, 'from_torch')} {rows['from_torch'].get('error', '')}".strip())
        for route in ("static", "preserve"):
            r = rows.get(route)
            if r and r["status"] != "ok" and not str(r.get("error", "")).startswith("export:"):
                failures.append(f"{model}: {route} {r.get('error', '')}")
        if "preserve" in rows and rows["preserve"]["status"] == "ok" and cell(rows, "preserve") not in ("exact", "exact (eval)"):
            failures.append(f"{model}: preserve {cell(rows, 'preserve')}")
        p = pub.get(model)
        any_row = next(iter(rows.values()))
        if p and p.get("num_params") and p.get("input") == any_row.get("input"):
            built = {str(any_row.get("torch_params", "")), str(any_row.get("torch_params_run", ""))}
            if p["num_params"] not in built:
                failures.append(f"{model}: built with {any_row.get('torch_params')} parameters, torchvision publishes "
                                f"{p['num_params']} ({p['weights']})")
        text, ok = macs_cell(rows, pub)
        if ok is False:
            gm = sorted({r["ridge_gmacs"] for r in rows.values() if r.get("status") == "ok"})
            failures.append(f"{model}: {' / '.join(gm)} GMACs against the published {text}")
    return failures


def tables(all_rows, routes):
    """A markdown table per family: each model's parameters per route (exact or Ridge minus torch),
    its MACs, and the first line of each failure."""
    out = []
    by = {}
    pub = published()
    for r in all_rows:
        by.setdefault(r["family"], {}).setdefault(r["model"], {})[r["route"]] = r
    for fam in sorted(by):
        out.append(f"\n### {fam}\n")
        out.append("| model | input | torch params | " + " | ".join(routes) + " | GMACs | published GFLOPS | unsupported: reason |")
        out.append("|---|---|---:|" + "---|" * len(routes) + "---:|---:|---|")
        for model in sorted(by[fam]):
            rows = by[fam][model]
            any_row = next(iter(rows.values()))
            gm = sorted({rows[r]["ridge_gmacs"] for r in routes if r in rows and rows[r]["status"] == "ok"})
            reasons = [f"{r}: {rows[r]['error']}" for r in routes if r in rows and rows[r]["status"] != "ok"]
            tp = any_row.get("torch_params", "")
            run = any_row.get("torch_params_run", "")
            tp_text = f"{int(tp):,}" if str(tp) else "?"
            if str(run) and str(tp) and int(run) != int(tp):
                tp_text += f" ({int(run):,} in the eval forward)"
            out.append(f"| {model} | {any_row.get('input', '')} | {tp_text} | "
                       + " | ".join(cell(rows, r) for r in routes)
                       + f" | {' / '.join(gm) if gm else '-'} | {macs_cell(rows, pub)[0]} | {'; '.join(reasons).replace('|', '/')} |")
    totals = []
    for route in routes:
        rs = [r for r in all_rows if r["route"] == route]
        ok = [r for r in rs if r["status"] == "ok"]
        cells = [cell({route: r}, route) for r in ok]
        exact = sum(c == "exact" for c in cells)
        explained = sum(c.startswith("exact (") for c in cells)
        totals.append(f"- {route}: {len(rs)} models, {len(ok)} imported; {exact} with exactly torch's parameters, "
                      f"{explained} more exact once the eval forward's unused heads or the batch norms the "
                      f"static export folds are left out; {len(ok) - exact - explained} off")
    return "\n".join(["**Totals**", ""] + totals + out)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", metavar="NAME", help="these models only")
    ap.add_argument("--routes", default=",".join(ROUTES), help="comma-separated: " + ",".join(ROUTES))
    ap.add_argument("--out", default="torchvision_walk.csv", help="CSV written row by row")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per model, all routes together")
    ap.add_argument("--tables", metavar="CSV", help="print the tables of an earlier run's CSV and stop")
    ap.add_argument("--check", action="store_true", help="exit 1 where a model issue #38 asks for is not imported "
                    "exactly at the published MACs (see above)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    a.routes = [r for r in a.routes.split(",") if r]
    for r in a.routes:
        if r not in ROUTES:
            ap.error(f"unknown route {r!r}: {', '.join(ROUTES)}")
    if a.child:
        return child(a)
    if a.tables:
        rows = read_csv(a.tables)
        print(tables(rows, [r for r in ROUTES if any(x["route"] == r for x in rows)]))
        return report_checks(rows) if a.check else 0
    models = catalogue()
    if a.only:
        unknown = [n for n in a.only if n not in dict(models)]
        if unknown:
            ap.error(f"not in torchvision's catalogue: {', '.join(unknown)}")
        models = [(n, f) for n, f in models if n in a.only]

    def size(item):   # smallest first: a partial run covers the most models
        w = default_weights(item[0])
        return w.meta.get("num_params", 0) if w is not None else 0

    models.sort(key=size)
    all_rows = []
    with open(a.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for i, (name, fam) in enumerate(models, 1):
            start = time.time()
            rows = in_child(name, fam, a.routes, a.timeout)
            for r in rows:
                writer.writerow(r)
            f.flush()
            all_rows += rows
            summary = ", ".join(f"{r['route']} {cell({r['route']: r}, r['route'])}" for r in rows)
            print(f"[{i}/{len(models)}] {name} ({time.time() - start:.0f} s): {summary}", file=sys.stderr, flush=True)
    print(tables(all_rows, a.routes))
    return report_checks(all_rows) if a.check else 0


def report_checks(rows):
    failures = checks(rows)
    for f in failures:
        print(f"check: {f}", file=sys.stderr)
    print(f"check: {len(failures)} failed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
