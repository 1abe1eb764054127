"""Training memory against PyTorch: the activation bytes Ridge keeps for backward, against what
autograd saves in a training-mode forward of the same torchvision network
(validate/saved/torchvision.csv, made by validate/scripts/saved_activations.py with Debian's
python3-torch 1.13 and torchvision; each row names its command). No constant of Ridge was fitted to
these rows: an op's saved values are its ATen form's (engine/costs, Saves), counted once per storage."""
import csv
import json
import os
import statistics
import subprocess

SIMULATE = os.environ.get("RIDGE_SIMULATE", "build/simulate")
SOURCE = os.environ.get("RIDGE_SOURCE_DIR", ".")

# Where Ridge's graph is not PyTorch's, and why (the bound holds the error where it is today):
#   swin_t, vit_b_*: torchvision's attention (nn.MultiheadAttention's math path, Swin's own) scales q
#   before Q K^T and saves its own intermediates; Ridge's attention op saves q, k, v and the
#   probabilities.
KNOWN = {"swin_t": 0.20, "vit_b_16": 0.10, "vit_b_32": 0.10}


def ridge_saved(network, batch):
    done = subprocess.run([SIMULATE, network, "t4", "--batch", str(batch), "--format", "json"],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["runs"][0]["saved_activation_bytes"]


def test_ridge_keeps_what_autograd_saves():
    rows = list(csv.DictReader(open(os.path.join(SOURCE, "validate", "saved", "torchvision.csv"))))
    assert len(rows) >= 30
    errors = {}
    for r in rows:
        errors[r["network"]] = ridge_saved(r["network"], int(r["batch"])) / float(r["saved_bytes"]) - 1
    for name, e in errors.items():
        assert abs(e) <= KNOWN.get(name, 0.02), f"{name}: {e:+.1%}"
    assert statistics.median(abs(e) for e in errors.values()) < 0.005
