"""validate/scripts/torchvision_walk.py --check (issue #38): what it lets through and what it refuses,
on rows written by hand in the walk's CSV format; the published figures are the repository's
validate/torchvision_published.csv."""
import csv
import os
import subprocess
import sys

ROOT = os.environ.get("RIDGE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
WALK = os.path.join(ROOT, "validate", "scripts", "torchvision_walk.py")
COLUMNS = ["family", "model", "input", "torch_params", "torch_params_run", "bn_folded", "route", "status", "ridge_params",
           "param_diff", "ridge_gmacs", "seconds", "error"]


def row(model, route, ridge_params, gmacs, torch_params=11689512, run=11689512, status="ok", error="", family="resnet",
        shape="3x224x224"):
    return {"family": family, "model": model, "input": shape, "torch_params": torch_params, "torch_params_run": run,
            "bn_folded": 9600, "route": route, "status": status, "ridge_params": ridge_params,
            "param_diff": "" if ridge_params == "" else ridge_params - torch_params, "ridge_gmacs": gmacs,
            "seconds": "1", "error": error}


def check(tmp_path, rows):
    path = tmp_path / "walk.csv"
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    done = subprocess.run([sys.executable, WALK, "--tables", str(path), "--check"], capture_output=True, text=True)
    return done.returncode, done.stderr


def test_a_model_imported_exactly_at_the_published_macs_passes(tmp_path):
    # resnet18: torchvision publishes 11,689,512 parameters and 1.814 GFLOPS.
    code, err = check(tmp_path, [row("resnet18", "from_torch", 11689512, "1.8142"),
                                 row("resnet18", "preserve", 11689512, "1.8142"),
                                 row("resnet18", "static", 11689512 - 9600, "1.8142")])
    assert code == 0, err


def test_parameters_off_through_from_torch_fail(tmp_path):
    code, err = check(tmp_path, [row("resnet18", "from_torch", 11689512 + 64, "1.8142")])
    assert code == 1 and "resnet18: from_torch +64" in err


def test_macs_beyond_the_published_rounding_fail(tmp_path):
    code, err = check(tmp_path, [row("resnet18", "from_torch", 11689512, "1.8160")])
    assert code == 1 and "against the published 1.814" in err


def test_an_import_failure_fails_but_one_inside_torch_exporter_does_not(tmp_path):
    ok = row("resnet18", "from_torch", 11689512, "1.8142")
    code, _ = check(tmp_path, [ok, row("resnet18", "static", "", "", status="failed", error="export: UnsupportedOperatorError")])
    assert code == 0
    code, err = check(tmp_path, [ok, row("resnet18", "static", "", "", status="failed", error="import: RidgeError: ...")])
    assert code == 1 and "resnet18: static import" in err


def test_mvit_is_not_asked_for(tmp_path):
    code, err = check(tmp_path, [row("mvit_v1_b", "from_torch", "", "", torch_params=36610672, run=36610672, status="failed",
                                     error="from_torch: RidgeError", family="video.mvit", shape="3x16x224x224")])
    assert code == 0, err


def test_a_model_built_unlike_the_published_one_fails(tmp_path):
    # fcn_resnet50 without its auxiliary classifier: 32,957,... parameters against the published 35,322,218.
    code, err = check(tmp_path, [row("fcn_resnet50", "from_torch", 32957530, "142.7258", torch_params=32957530, run=32957530,
                                     family="segmentation.fcn", shape="3x520x520")])
    assert code == 1 and "torchvision publishes 35322218" in err
