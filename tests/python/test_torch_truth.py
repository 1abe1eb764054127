"""validate/scripts/torch_truth.py's arithmetic, without timing anything: how it folds the fresh
processes of one network into one record, and how it compares records with simulate's predictions
(--measured, against records written here with known times)."""
import importlib.util
import json
import os
import statistics
import subprocess
import sys

import pytest

SOURCE = os.environ.get("RIDGE_SOURCE_DIR", ".")
SIMULATE = os.environ.get("RIDGE_SIMULATE", "build/simulate")
SCRIPT = os.path.join(SOURCE, "validate", "scripts", "torch_truth.py")
DEVICE = os.path.join(SOURCE, "hw", "xeon-e5-2699v4-2s.hw")


def load_script(name):
    """validate/scripts/NAME.py as a module; the folder goes on sys.path, as when the script runs,
    since alloc_trace.py imports torch_truth from beside itself."""
    folder = os.path.join(SOURCE, "validate", "scripts")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, os.path.join(folder, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def truth():
    return load_script("torch_truth")


def process(median, times, faulted):
    return {"network": "squeezenet1_1", "mode": "infer", "median_s": median, "times_s": times,
            "min_s": min(times), "max_s": max(times), "cv": statistics.stdev(times) / statistics.mean(times),
            "faulted_bytes": faulted}


def test_a_network_is_the_median_of_its_processes_medians(truth):
    runs = [process(0.100, [0.099, 0.100, 0.101], 50e6), process(0.130, [0.128, 0.130, 0.140], 130e6),
            process(0.110, [0.105, 0.110, 0.111], 60e6)]
    record = truth.combine(runs)
    assert record["median_s"] == 0.110
    assert record["process_medians_s"] == [0.100, 0.130, 0.110]
    assert record["min_s"] == 0.099 and record["max_s"] == 0.140
    assert len(record["times_s"]) == 9
    assert record["process_cv"] == pytest.approx(statistics.stdev([0.100, 0.130, 0.110]) / 0.11333333, rel=1e-6)
    # The noisiest process's repeats, so a warning is not averaged away.
    assert record["cv"] == pytest.approx(max(r["cv"] for r in runs))
    assert record["process_faulted_bytes"] == [50e6, 130e6, 60e6]


def test_one_process_has_no_spread_between_processes(truth):
    record = truth.combine([process(0.1, [0.1, 0.1], 0.0)])
    assert record["process_cv"] is None
    assert record["median_s"] == 0.1


def predicted(network, batch):
    out = subprocess.run([SIMULATE, os.path.join(SOURCE, "models", f"{network}.net"), DEVICE, "--batch", str(batch),
                          "--format", "json"], capture_output=True, text=True, check=True).stdout
    run = json.loads(out)["runs"][0]
    return {"infer": run["time_fwd_s"], "train": run["time_train_step_s"]}


def test_the_comparison_is_predicted_over_measured_less_one(tmp_path):
    networks = ["squeezenet1_1", "alexnet", "resnet18"]
    truth_of = {n: predicted(n, 8) for n in networks}
    # Measured times chosen so the errors are known: -20 %, +25 %, +0 % (inference), and the same
    # predictions measured a tenth slower for the training step.
    scale = {"squeezenet1_1": 1.25, "alexnet": 0.8, "resnet18": 1.0}
    records = []
    for n in networks:
        for mode, factor in (("infer", scale[n]), ("train", 1.1)):
            m = truth_of[n][mode] * factor
            records.append({"network": n, "mode": mode, "median_s": m, "times_s": [m], "min_s": m, "max_s": m,
                            "cv": None})
    measured = tmp_path / "earlier.json"
    measured.write_text(json.dumps({"torch": "test", "torchvision": "test", "cpu": "test", "date": "2026-11-24",
                                    "threads": 1, "batch": 8, "warmup": 0, "repeats": 1, "records": records}))
    done = subprocess.run([sys.executable, SCRIPT, "--measured", str(measured), "--networks", *networks,
                           "--compare", DEVICE, "--simulate", SIMULATE, "--out", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "torch_truth-threads1-compared.json").read_text())
    rows = {row["network"]: row for row in result["comparison"]["networks"]}
    assert rows["squeezenet1_1"]["infer"]["error"] == pytest.approx(1 / 1.25 - 1)
    assert rows["alexnet"]["infer"]["error"] == pytest.approx(1 / 0.8 - 1)
    assert rows["resnet18"]["infer"]["error"] == pytest.approx(0.0, abs=1e-12)
    assert result["comparison"]["median_abs_error"]["infer"] == pytest.approx(0.2)
    assert result["comparison"]["median_abs_error"]["train"] == pytest.approx(1 - 1 / 1.1)
    assert "Median absolute error (3 networks): inference 20.0%, training step 9.1%" in done.stdout


def test_no_processes_is_refused():
    done = subprocess.run([sys.executable, SCRIPT, "--processes", "0"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "--processes must be at least 1" in done.stderr


@pytest.fixture(scope="module")
def alloc_trace():
    return load_script("alloc_trace")


def test_the_heap_share_leaves_mapped_blocks_out(alloc_trace):
    steps = [{"fresh_bytes": b} for b in (100e6, 130e6, 110e6)]
    # Median 110 MB fresh, 50 of them mapped blocks (fresh every time): 60 of the 550 MB from the heap.
    assert alloc_trace.heap_share(steps, 600e6, 50e6) == pytest.approx(60 / 550)
    assert alloc_trace.heap_share(steps, 50e6, 50e6) == 0.0


def test_the_arena_model_maps_then_raises_its_threshold_then_keeps_the_heap(alloc_trace):
    # glibc malloc.c: a request at or above the mmap threshold that the top cannot serve gets pages of
    # its own; freeing them raises the threshold to their size, so the next such request comes from the
    # heap, which stays resident while the free top is below the trim threshold (twice the mmap one).
    # The model is the engine's (engine/host_allocator.hpp), which alloc_trace.py replays traces through.
    mib = 1 << 20
    fresh = alloc_trace.replay([("a", 0, mib), ("f", 0, 0)], steps=3)
    assert fresh[0] >= mib            # mapped on its own
    assert fresh[1] >= mib            # the heap grows for it: new pages
    assert fresh[2] == 0              # the same pages again
    # A block above glibc's 32 MiB cap on the threshold is mapped afresh at every step.
    assert all(b >= 40 * mib for b in alloc_trace.replay([("a", 0, 40 * mib), ("f", 0, 0)], steps=3))
