"""The listings docs/language.md opens with are the language as it is: the ResNet-18 network
elaborates to torchvision's 11,689,512 parameters and 1.81 GMAC per sample (torchvision's
ResNet18_Weights: 11.7 M params, 1.81 GFLOPS, which are MACs), like models/resnet18.net; the A100
device parses with the peaks and memory it shows."""
import os
import re

import ridge

SOURCE = os.environ.get("RIDGE_SOURCE_DIR", ".")


def blocks():
    text = open(os.path.join(SOURCE, "docs", "language.md"), encoding="utf-8").read()
    glance = text[text.index("## At a glance"):text.index("\n## ", text.index("## At a glance") + 1)]
    return re.findall(r"```\n(.*?)```", glance, re.S)


def test_the_network_listing_is_torchvision_resnet18():
    net = ridge.network(text=blocks()[0], name="glance.net")
    r = ridge.simulate(net, "a100-sxm4-40gb")
    assert r.total("params") == 11_689_512
    assert round(r.total("macs") / 1e9, 2) == 1.81
    assert r.total("params") == ridge.simulate("resnet18", "a100-sxm4-40gb").total("params")


def test_the_device_listing_parses_with_its_figures():
    dev = ridge.device(text=blocks()[1], name="glance.hw")
    assert dev.name == "NVIDIA A100-SXM4-40GB"
    r = ridge.simulate("resnet18", dev, dtype="fp16")
    assert r.total("peak_flops") == 312e12                 # matrix.fp16
    assert r.total("bandwidth") == 1555e9
    assert r.total("device_memory_bytes") == 40 * 2**30
