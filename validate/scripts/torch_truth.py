#!/usr/bin/python3
"""Time torchvision's networks from Python, as a user's script does: the truth Ridge is judged against.

calibrate times its own LibTorch programs in one long process; a user times torchvision's models from a
fresh Python script. This runs the latter (issue 16), through Debian's python3-torch/python3-torchvision:

  model = torchvision.models.get_model(NAME, weights=None)   # googlenet, inception_v3: no aux heads
  inference:      model.eval(); with torch.no_grad(): model(x)
  training step:  model.train(); optimizer.zero_grad(); CrossEntropyLoss(model(x), random labels)
                  .backward(); optimizer.step()   # torch.optim.SGD(lr=0.01, momentum=0.9)

which is what simulate's training step counts (training-mode forward + backward + SGD-momentum update;
docs/counting.md). fp32, default allocator, batch --batch (8), input 3x224x224 (inception_v3:
299x299), torch.set_num_threads(--threads) or torch's own default; --warmup (2) runs discarded, then the
median of --repeats (5). Each network and mode runs in a fresh Python process, as a user's script
would: glibc's malloc adapts its mmap threshold to what a process has freed, so a long process that
ran other networks first would see a warmer allocator than the user does.

One process is one draw of the allocator's state: the same script, run again, can land in another.
googlenet's forward at batch 8, one thread, faulted in 51 MB of fresh pages in one process and 130 MB in
the next (461 against 504 ms); efficientnet_b0's 145 MB against 283 MB (230 against 303 ms). So every
network and mode runs in --processes (3) fresh processes, taken in turns (all networks once, then again)
so that drift on the machine spreads over them all; its time is the median of the processes' medians,
and the spread between processes is reported beside the spread of the repeats.

Writes

  OUT/torch_truth-threadsN.json   one record per network and mode: median, every time, min, max,
                                  coefficient of variation (sample stddev / mean), each process's
                                  median and the fresh pages it faulted in per run (getrusage minor
                                  faults x page size, median over the runs), threads, batch,
                                  torch/torchvision versions, CPU model, date; and the comparison below
  OUT/torch_truth-threadsN.txt    the table printed

With --compare FILE.hw --simulate PATH/TO/simulate it also predicts every network with
`simulate NET FILE.hw --batch B --format json` and prints predicted vs measured, the signed error
(predicted / measured - 1) and the median absolute error over the networks, for inference and the
training step.

Takes about 9 minutes on two cores at 1 thread for the default eight networks in 3 processes each
(vgg11's training step alone takes ~10 s a run); --networks squeezenet1_1 --warmup 1 --repeats 2
--processes 1 is a 15-second smoke test.
Not a CI test: it is slow, and its numbers are only meaningful on an idle machine.
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import resource
import statistics
import subprocess
import sys
import time

# The set-up: calibrate fits the first three, the other five are held out.
DEFAULT_NETWORKS = ["alexnet", "vgg11", "resnet18", "resnet50", "googlenet", "mobilenet_v3_large", "squeezenet1_1",
                    "efficientnet_b0"]
# The zoo's googlenet is torchvision's inference graph (no aux heads); init_weights=False skips
# torchvision's scipy-based initialiser, which only changes the values, never the timed work.
MODEL_KWARGS = {"googlenet": {"aux_logits": False, "init_weights": False},
                "inception_v3": {"aux_logits": False, "init_weights": False}}
# simulate overrides that make the zoo's network the one built above.
SIMULATE_SETS = {"inception_v3": ["aux_logits=false"]}
INPUT_SIZE = {"inception_v3": 299}
NUM_CLASSES = 1000
NOISY_CV = 0.05   # calibrate's kNoisyCv (validate/spread.hpp): above it the machine is too noisy to trust
REPO = pathlib.Path(__file__).resolve().parents[2]


def coefficient_of_variation(times):
    """Sample stddev over mean, as calibrate computes it (validate/spread.cpp); None for one run."""
    if len(times) < 2 or statistics.mean(times) <= 0:
        return None
    return statistics.stdev(times) / statistics.mean(times)


def cpu_model():
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def user_step(name, mode, batch):
    """NAME built as the docstring says, and one MODE step of it as a user's script runs it: the
    function to time (alloc_trace.py runs the same step)."""
    import torch
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.get_model(name, weights=None, **MODEL_KWARGS.get(name, {}))
    size = INPUT_SIZE.get(name, 224)
    x = torch.randn(batch, 3, size, size)
    if mode == "infer":
        model.eval()

        def run():
            with torch.no_grad():
                model(x)
        return run
    model.train()
    labels = torch.randint(0, NUM_CLASSES, (batch,))
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def run():
        optimizer.zero_grad()
        loss = criterion(model(x), labels)
        loss.backward()
        optimizer.step()
        return loss
    return run


def timed(run):
    """One call of RUN: its seconds, the bytes of fresh pages it faulted in (getrusage minor faults x page
    size: what the engine's fresh-memory term counts) and what it returned. alloc_trace.py times the same way."""
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    t0 = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - t0
    return seconds, (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) * resource.getpagesize(), result


def time_one(name, mode, threads, batch, warmup, repeats):
    """Run in the child process: build NAME, time MODE, return the record."""
    import torch

    if threads:
        torch.set_num_threads(threads)
    run = user_step(name, mode, batch)
    for _ in range(warmup):
        run()
    times = []
    faulted = []   # bytes of fresh pages each run faulted in
    last = None
    for _ in range(repeats):
        seconds, fresh, last = timed(run)
        times.append(seconds)
        faulted.append(fresh)
    size = INPUT_SIZE.get(name, 224)
    record = {"network": name, "mode": mode, "threads": torch.get_num_threads(), "batch": batch,
              "input": [3, size, size], "median_s": statistics.median(times), "times_s": times,
              "min_s": min(times), "max_s": max(times), "cv": coefficient_of_variation(times),
              "faulted_bytes": statistics.median(faulted), "warmup": warmup, "repeats": repeats}
    if last is not None and not torch.isfinite(last).item():
        record["note"] = "loss is not finite: the step may have timed a NaN/denormal slow path"
    return record


def measure_once(name, mode, args):
    """One network and mode in a fresh Python process (see the docstring: a user's allocator state)."""
    cmd = [sys.executable, __file__, "--child", name, mode, "--batch", str(args.batch), "--warmup", str(args.warmup),
           "--repeats", str(args.repeats)] + (["--threads", str(args.threads)] if args.threads else [])
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{name} {mode} failed:\n{run.stderr}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def combine(runs):
    """One record of a network and mode from its processes' records: the median of their medians."""
    medians = [r["median_s"] for r in runs]
    times = [t for r in runs for t in r["times_s"]]
    cvs = [r["cv"] for r in runs if r["cv"] is not None]
    return runs[0] | {"median_s": statistics.median(medians), "times_s": times, "min_s": min(times), "max_s": max(times),
                      "cv": max(cvs) if cvs else None, "process_medians_s": medians,
                      "process_cv": coefficient_of_variation(medians),
                      "process_faulted_bytes": [r["faulted_bytes"] for r in runs]}


def predict(name, args):
    """simulate's inference and training-step time for NAME on the --compare device."""
    net = REPO / "models" / f"{name}.net"
    cmd = [args.simulate, str(net) if net.exists() else name, args.compare, "--batch", str(args.batch), "--format",
           "json"]
    for s in SIMULATE_SETS.get(name, []):
        cmd += ["--set", s]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"simulate failed on {name}:\n{run.stderr}")
    r = json.loads(run.stdout)["runs"][0]
    return {"infer": r["time_fwd_s"], "train": r["time_train_step_s"]}


def ms(s):
    return f"{s * 1e3:10.2f}"


def cv_text(cv):
    return "       -" if cv is None else f"{cv * 100:7.1f}%"


def pct(v):
    return "       -" if v is None else f"{v * 100:+7.1f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--networks", nargs="+", default=DEFAULT_NETWORKS, help="torchvision model names")
    ap.add_argument("--modes", nargs="+", choices=["infer", "train"], default=["infer", "train"])
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: torch's default)")
    ap.add_argument("--warmup", type=int, default=2, help="runs discarded before timing")
    ap.add_argument("--repeats", type=int, default=5, help="timed runs (median)")
    ap.add_argument("--processes", type=int, default=3,
                    help="fresh processes per network and mode (median of their medians)")
    ap.add_argument("--out", default=".", help="folder for the JSON and the table")
    ap.add_argument("--compare", metavar="FILE.hw", help="predict every network on this device and compare")
    ap.add_argument("--simulate", metavar="PATH", help="the simulate program (with --compare)")
    ap.add_argument("--measured", metavar="FILE.json",
                    help="compare against the records of an earlier run's JSON instead of measuring again "
                         "(to try several .hw files against one set of measurements; its threads and batch)")
    ap.add_argument("--child", nargs=2, metavar=("NET", "MODE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.batch < 1 or args.warmup < 0 or args.repeats < 1 or args.threads < 0 or args.processes < 1:
        ap.error("--batch, --repeats and --processes must be at least 1, --warmup and --threads at least 0")
    if args.child:
        print(json.dumps(time_one(*args.child, args.threads, args.batch, args.warmup, args.repeats)))
        return 0
    if bool(args.compare) != bool(args.simulate):
        ap.error("--compare and --simulate go together")

    import torch
    import torchvision
    threads = args.threads or torch.get_num_threads()
    load_before = os.getloadavg()
    if load_before[0] > 0.5:
        print(f"warning: load average {load_before[0]:.2f} before the run; timings on a busy machine are not "
              "a user's (run it on an idle machine)", flush=True)
    meta = {"torch": torch.__version__, "torchvision": torchvision.__version__, "python": platform.python_version(),
            "cpu": cpu_model(), "cores": os.cpu_count(), "date": datetime.date.today().isoformat(),
            "threads": threads, "threads_requested": args.threads or "default", "batch": args.batch,
            "dtype": "fp32", "warmup": args.warmup, "repeats": args.repeats, "processes": args.processes,
            "GLIBC_TUNABLES": os.environ.get("GLIBC_TUNABLES"), "load_average_before": load_before}

    records = []
    start = time.monotonic()
    if args.measured:
        earlier = json.loads(pathlib.Path(args.measured).read_text())
        if earlier["batch"] != args.batch:
            ap.error(f"--measured was run at batch {earlier['batch']}, not {args.batch}")
        threads = earlier["threads"]
        meta |= {k: earlier[k] for k in ("torch", "torchvision", "cpu", "date", "threads", "warmup", "repeats")}
        meta["processes"] = earlier.get("processes", 1)   # records from before --processes: one each
        meta["measured_from"] = args.measured
        records = [r for r in earlier["records"] if r["network"] in args.networks and r["mode"] in args.modes]
    runs = {}
    for turn in range(args.processes if not args.measured else 0):
        for name in args.networks:
            for mode in args.modes:
                print(f"  {name} {mode} (process {turn + 1} of {args.processes}) ...", file=sys.stderr, flush=True)
                runs.setdefault((name, mode), []).append(measure_once(name, mode, args))
    for (name, mode), got in runs.items():
        records.append(combine(got) | {k: meta[k] for k in ("torch", "torchvision", "cpu", "date")})

    lines = [f"torchvision from Python: torch {meta['torch']}, torchvision {meta['torchvision']}, {meta['cpu']}, "
             f"{threads} thread(s), batch {args.batch}, fp32, median over {meta['processes']} process(es) of the "
             f"median of {args.repeats} after {args.warmup} warm-up(s)",
             f"  {'network':20} {'mode':5} {'median ms':>10} {'min ms':>10} {'max ms':>10} {'cv':>8} "
             f"{'processes ms':>24} {'cv':>8}  fresh MB per run, per process"]
    for r in records:
        per_process = " ".join(f"{m * 1e3:.1f}" for m in r.get("process_medians_s", [r["median_s"]]))
        faulted = " ".join(f"{b / 1e6:.0f}" for b in r.get("process_faulted_bytes", []))
        lines.append(f"  {r['network']:20} {r['mode']:5} {ms(r['median_s'])} {ms(r['min_s'])} {ms(r['max_s'])} "
                     f"{cv_text(r['cv'])} {per_process:>24} {cv_text(r.get('process_cv'))}  {faulted}"
                     + (f"  ({r['note']})" if "note" in r else ""))
    for r in records:
        if r["cv"] is not None and r["cv"] > NOISY_CV:
            lines.append(f"warning: {r['network']} {r['mode']} varies by CV {r['cv']:.2%} over its repeats "
                         f"(above {NOISY_CV:.0%}): the machine is noisy; close other work or raise --repeats")
        if r.get("process_cv") is not None and r["process_cv"] > NOISY_CV:
            lines.append(f"note: {r['network']} {r['mode']} varies by CV {r['process_cv']:.2%} between fresh "
                         f"processes: one script's run is one draw of the allocator's state (see --help)")

    comparison = None
    if args.compare:
        comparison = {"hw": args.compare, "networks": [], "median_abs_error": {}}
        lines += ["", f"Predicted by simulate on {args.compare} vs measured (error = predicted / measured - 1):",
                  f"  {'network':20} {'infer pred':>10} {'measured':>10} {'err':>8} | "
                  f"{'train pred':>10} {'measured':>10} {'err':>8}"]
        errors = {"infer": [], "train": []}
        for name in args.networks:
            p = predict(name, args)
            row = {"network": name}
            cells = []
            for mode in ("infer", "train"):
                m = next((r["median_s"] for r in records if r["network"] == name and r["mode"] == mode), None)
                err = p[mode] / m - 1 if m else None
                row[mode] = {"predicted_s": p[mode], "measured_s": m, "error": err}
                if err is not None:
                    errors[mode].append(abs(err))
                cells.append(f"{ms(p[mode])} {ms(m) if m else '         -'} {pct(err)}")
            comparison["networks"].append(row)
            lines.append(f"  {name:20} " + " | ".join(cells))
        for mode, errs in errors.items():
            comparison["median_abs_error"][mode] = statistics.median(errs) if errs else None
        med = {mode: "-" if v is None else f"{v:.1%}" for mode, v in comparison["median_abs_error"].items()}
        # Over the networks measured: with --measured, the default list may name networks the records lack.
        counted = max(len(errors["infer"]), len(errors["train"]))
        lines.append(f"Median absolute error ({counted} networks): inference {med['infer']}, "
                     f"training step {med['train']}")

    seconds = time.monotonic() - start
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / (f"torch_truth-threads{threads}" + ("-compared" if args.measured else ""))
    result = {"command": sys.argv, "seconds": round(seconds, 1), "load_average_after": os.getloadavg(), **meta,
              "records": records, "comparison": comparison}
    pathlib.Path(f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    pathlib.Path(f"{stem}.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"({seconds:.0f} s; wrote {stem}.json and {stem}.txt)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
