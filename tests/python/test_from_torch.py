"""ridge.from_torch: torchvision models, exported to ONNX in memory and imported, against torchvision's
published figures. Golden figures: torchvision's documentation, "Classification" weights tables
(https://pytorch.org/vision/stable/models.html#table-of-all-available-classification-weights), whose
"Params" and "GFLOPS" columns come from each weights enum's meta["num_params"] and meta["_ops"]
(e.g. MNASNet1_0_Weights.IMAGENET1K_V1: num_params 4383312, _ops 0.314). "GFLOPS" there are
multiply-accumulates: compared with Ridge's MACs to half a unit of the last published digit."""
import pytest

torch = pytest.importorskip("torch", reason="python3-torch (sh .ci/setup installs it)")
torchvision = pytest.importorskip("torchvision", reason="python3-torchvision (sh .ci/setup installs it)")

import ridge

# name, num_params, GFLOPS as the docs table prints it, meta["_ops"] as the torchvision source holds it
PUBLISHED = [
    ("resnet18", 11_689_512, "1.81", "1.814"),            # in the zoo
    ("mobilenet_v2", 3_504_872, "0.3", "0.301"),          # in the zoo
    ("mnasnet1_0", 4_383_312, "0.31", "0.314"),           # not in the zoo
    ("regnet_x_400mf", 5_495_976, "0.41", "0.414"),       # not in the zoo
    ("shufflenet_v2_x1_0", 2_278_604, "0.14", "0.145"),   # not in the zoo
]


def half_unit(text):
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10 ** -decimals


@pytest.mark.parametrize("name,params,gflops,ops", PUBLISHED)
def test_from_torch_matches_torchvision(name, params, gflops, ops):
    model = torchvision.models.get_model(name, weights=None)
    assert sum(p.numel() for p in model.parameters()) == params   # the published count is the model's
    net = ridge.from_torch(model, torch.randn(1, 3, 224, 224), name=name)
    assert net.free_nodes == []
    result = ridge.simulate(net, "a100-sxm4-40gb", batch=1)
    assert result.total("params") == params
    gmacs = result.total("macs") / 1e9
    assert abs(gmacs - float(gflops)) <= half_unit(gflops) + 1e-9
    assert abs(gmacs - float(ops)) <= half_unit(ops) + 1e-9
    # The batch axis stays symbolic: batch 8 is eight samples' work.
    assert ridge.simulate(net, "a100-sxm4-40gb", batch=8).total("macs") == pytest.approx(8 * result.total("macs"), rel=1e-12)


def test_from_torch_leaves_the_model_in_its_mode():
    model = torchvision.models.get_model("resnet18", weights=None)
    model.train()
    ridge.from_torch(model, torch.randn(1, 3, 224, 224))
    assert model.training


def test_a_zoo_model_from_torch_simulates_like_its_net():
    # The zoo's resnet18.net and torchvision's resnet18 are one network: one set of totals.
    net = ridge.from_torch(torchvision.models.resnet18(weights=None), torch.randn(1, 3, 224, 224))
    a = ridge.simulate(net, "a100-sxm4-40gb", batch=32)
    b = ridge.simulate("resnet18", "a100-sxm4-40gb", batch=32)
    for column in ("params", "macs", "flops_fwd", "flops_bwd", "bytes_fwd"):
        assert a.total(column) == pytest.approx(b.total(column), rel=1e-12), column
