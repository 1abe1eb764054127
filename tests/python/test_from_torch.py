"""ridge.from_torch: torchvision models, exported to ONNX in memory and imported, against torchvision's
published figures. Golden figures: torchvision's documentation, "Classification" weights tables
(https://pytorch.org/vision/stable/models.html#table-of-all-available-classification-weights), whose
"Params" and "GFLOPS" columns come from each weights enum's meta["num_params"] and meta["_ops"]
(e.g. MNASNet1_0_Weights.IMAGENET1K_V1: num_params 4383312, _ops 0.314). "GFLOPS" there are
multiply-accumulates: compared with Ridge's MACs to half a unit of the last published digit."""
import io

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


# Issue #38: models whose eval path PyTorch fast-paths, layer scale, the class token, segmentation heads.
# Parameters are compared with torch's own count, sum(p.numel()), computed here; MACs with torchvision's
# published "GFLOPS" (ViT_B_32_Weights.IMAGENET1K_V1: 88224232 parameters, 4.41; ConvNeXt_Tiny_Weights:
# 28589128, 4.46).
def torch_params(model):
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("name,gflops", [("vit_b_32", "4.41"), ("convnext_tiny", "4.46")])
def test_from_torch_transformer_and_layer_scale_models(name, gflops):
    model = torchvision.models.get_model(name, weights=None)
    net = ridge.from_torch(model, torch.randn(1, 3, 224, 224), name=name)
    assert net.free_nodes == []
    result = ridge.simulate(net, "a100-sxm4-40gb", batch=1)
    # ConvNeXt's 18 layer scales hold equal values when freshly built; each is counted.
    assert result.total("params") == torch_params(model)
    assert abs(result.total("macs") / 1e9 - float(gflops)) <= half_unit(gflops) + 1e-9


# Window attention (issue #38): Swin folds the batch into its windows ([B * 64, 49, C]) and builds its
# shifted-window mask from shapes alone; Swin and MaxViT read a learned relative-position bias table
# through a fixed index. Published: Swin_T_Weights.IMAGENET1K_V1 28,288,354 parameters, 4.49 GFLOPS;
# MaxVit_T_Weights.IMAGENET1K_V1 30,919,624, 5.56; Swin_V2_T_Weights.IMAGENET1K_V1 28,351,570, 5.94 at
# 256 x 256 (torchvision's docs table). Swin V2's position bias is an MLP over a fixed coordinates
# buffer (not parameters), its attention cosine, and torch 1.13 exports its aten::zero only through
# the symbolic ridge.from_torch lends it.
@pytest.mark.parametrize("name,size,params,gflops", [("swin_t", 224, 28_288_354, "4.49"), ("maxvit_t", 224, 30_919_624, "5.56"),
                                                     ("swin_v2_t", 256, 28_351_570, "5.94")])
def test_from_torch_window_attention_models(name, size, params, gflops):
    model = torchvision.models.get_model(name, weights=None)
    assert torch_params(model) == params
    net = ridge.from_torch(model, torch.randn(1, 3, size, size), name=name)
    assert net.free_nodes == []
    result = ridge.simulate(net, "a100-sxm4-40gb", batch=1)
    assert result.total("params") == params
    assert abs(result.total("macs") / 1e9 - float(gflops)) <= half_unit(gflops) + 1e-9
    # The batch stays outside the windows: batch 4 is four samples' work.
    assert ridge.simulate(net, "a100-sxm4-40gb", batch=4).total("macs") == pytest.approx(4 * result.total("macs"), rel=1e-12)
    if name == "swin_t":   # the zoo's hand-written swin_t.net counts the same multiply-adds and FLOPs
        zoo = ridge.simulate("swin_t", "a100-sxm4-40gb", batch=1)
        assert result.total("macs") == zoo.total("macs")
        assert result.total("flops_fwd") == zoo.total("flops_fwd")


def test_from_torch_transformer_encoder_off_the_fast_path():
    # In eval mode with grad off PyTorch runs aten::_transformer_encoder_layer_fwd, which torch.onnx
    # refuses; from_torch exports the same function on the path the exporter knows. The two layers are
    # deep copies with equal values: both are counted.
    layer = torch.nn.TransformerEncoderLayer(64, 4, 128, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, 2).eval()
    for p in model.parameters():
        p.requires_grad_(False)   # a frozen model, as for inference
    net = ridge.from_torch(model, torch.randn(1, 10, 64))
    result = ridge.simulate(net, "a100-sxm4-40gb", batch=1)
    assert result.total("params") == torch_params(model)
    assert not model.training and not any(p.requires_grad for p in model.parameters())
    ops = [row["op"] for row in result.layers.rows()]
    assert ops.count("attention") == 2
    # Per layer: q, k, v and out projections (4 * 10 * 64 * 64), the FFN (2 * 10 * 64 * 128), and
    # attention's two products (2 * 10 * 10 * 64).
    assert result.total("macs") == 2 * (4 * 10 * 64 * 64 + 2 * 10 * 64 * 128 + 2 * 10 * 10 * 64)


def test_default_static_export_of_vit_imports(tmp_path):
    # torch.onnx.export with its defaults: static batch 1, constant folding, opset 14 (layer norms
    # written out). The weights are drawn at random, as a trained model's differ: a fresh model's
    # equal-valued layer norms would be merged into one initializer by the exporter.
    model = torchvision.models.vit_b_32(weights=None).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.normal_()
    path = tmp_path / "vit_b_32.onnx"
    torch.onnx.export(model, torch.randn(1, 3, 224, 224), str(path))
    result = ridge.simulate(ridge.network(str(path)), "a100-sxm4-40gb", batch=1)
    assert result.total("params") == torch_params(model)
    assert abs(result.total("macs") / 1e9 - 4.41) <= 0.005


@pytest.mark.parametrize("name", ["fcn_resnet50", "deeplabv3_resnet50", "lraspp_mobilenet_v3_large"])
def test_from_torch_segmentation_models(name):
    # Their heads resize to the input's size, computed from its shape (Resize with sizes).
    model = torchvision.models.get_model(name, weights=None, weights_backbone=None)
    net = ridge.from_torch(model, torch.randn(1, 3, 224, 224), name=name)
    result = ridge.simulate(net, "a100-sxm4-40gb", batch=1)
    assert result.total("params") == torch_params(model)
    assert "upsample" in [row["op"] for row in result.layers.rows()]


class _Einsums(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(8, 6))

    def forward(self, x):
        y = torch.einsum("btd,de->bte", x, self.w)
        scores = torch.einsum("bqe,bke->bqk", y, y)
        return torch.einsum("bqk,bke->bqe", scores.softmax(-1), y)


def test_from_torch_einsum_is_the_matmuls_it_spells():
    net = ridge.from_torch(_Einsums(), torch.randn(1, 5, 8))
    result = ridge.simulate(net, "a100-sxm4-40gb", batch=1)
    assert result.total("params") == 8 * 6
    assert result.total("macs") == 5 * 8 * 6 + 5 * 5 * 6 + 5 * 5 * 6


class _Unexportable(torch.nn.Module):
    def forward(self, x):
        return torch.linalg.svdvals(x.view(-1, 2, 2))


class _WithUnexportable(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.body = torch.nn.Sequential(torch.nn.ReLU(), _Unexportable())

    def forward(self, x):
        return self.body(self.fc(x))


def test_from_torch_names_the_module_that_does_not_export():
    with pytest.raises(ridge.RidgeError, match=r"submodule 'body\.1' \(_Unexportable\).*linalg_svdvals"):
        ridge.from_torch(_WithUnexportable(), torch.randn(1, 4))


class _WithOptions(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x, mask=None, relu=False):
        y = self.fc(x)
        return torch.relu(y) if relu else y


def test_from_torch_takes_keyword_inputs():
    net = ridge.from_torch(_WithOptions(), (torch.randn(1, 4),), kwargs={"relu": True})
    result = ridge.simulate(net, "a100-sxm4-40gb", batch=1)
    assert result.total("params") == 4 * 3 + 3
    assert [row["op"] for row in result.layers.rows()] == ["input", "linear", "relu"]


@pytest.mark.parametrize("make,gates", [
    (lambda: torch.nn.LSTM(64, 128, num_layers=2, batch_first=True), 4),
    (lambda: torch.nn.GRU(64, 128, num_layers=2, bidirectional=True, batch_first=True), 3),
])
def test_from_torch_recurrent_modules_return_their_final_states(make, gates):
    # nn.LSTM and nn.GRU return (output, final states): the states are read, as views of the
    # recurrent layer's last step (its kernel makes them; reading them moves nothing).
    model = make().eval()
    net = ridge.from_torch(model, torch.randn(1, 10, 64))
    result = ridge.simulate(net, "a100-sxm4-40gb", batch=1)
    assert result.total("params") == torch_params(model)
    ops = [row["op"] for row in result.layers.rows()]
    assert ops.count("lstm" if gates == 4 else "gru") == 2
    # Per step, direction and layer: each gate's input and hidden products, gates * H * (I + H) MACs.
    dirs = 2 if model.bidirectional else 1
    per_step = gates * 128 * (64 + 128) * dirs + gates * 128 * (128 * dirs + 128) * dirs
    assert result.total("macs") == 10 * per_step


def test_from_torch_one_tensor_for_several_arguments_is_one_input():
    # Self-attention: mha(x, x, x) is a network of one input; its packed in-projection, the attention
    # and the out-projection: 10 x 64 x 192 + 2 x 10 x 10 x 64 + 10 x 64 x 64 MACs.
    model = torch.nn.MultiheadAttention(64, 4, batch_first=True).eval()
    x = torch.randn(1, 10, 64)
    net = ridge.from_torch(model, (x, x, x), kwargs={"need_weights": False})
    result = ridge.simulate(net, "a100-sxm4-40gb", batch=1)
    assert result.total("params") == torch_params(model)
    assert [row["op"] for row in result.layers.rows()].count("attention") == 1
    assert result.total("macs") == 10 * 64 * 192 + 2 * 10 * 10 * 64 + 10 * 64 * 64
    # Its default also returns the heads' averaged weights: the scores, [batch * 4 heads, 10, 10] as
    # PyTorch computes them (the batch folded with the heads), viewed per head, summed over the heads
    # and divided by 4. The same products, and the average's own layers beside them.
    with_weights = ridge.simulate(ridge.from_torch(model, (x, x, x)), "a100-sxm4-40gb", batch=1)
    assert with_weights.total("params") == torch_params(model)
    assert with_weights.total("macs") == result.total("macs")
    assert [row["op"] for row in with_weights.layers.rows()].count("sum") == 1
    # Distinct tensors are distinct inputs of the network: queries of 10 positions attend to 12 keys
    # and values, each projected by its own third of the packed in_proj_weight.
    q_k_v = ridge.from_torch(model, (x, torch.randn(1, 12, 64), torch.randn(1, 12, 64)), kwargs={"need_weights": False})
    result = ridge.simulate(q_k_v, "a100-sxm4-40gb", batch=1)
    assert [row["op"] for row in result.layers.rows()].count("input") == 3
    assert result.total("params") == torch_params(model)
    assert result.total("macs") == 10 * 64 * 64 + 2 * 12 * 64 * 64 + 2 * 10 * 12 * 64 + 10 * 64 * 64


def test_from_torch_encoder_decoder_modules_take_two_inputs():
    # nn.Transformer(src, tgt): a network of two inputs, the decoder's cross-attention reading the
    # encoder's memory. d_model E = 64, 4 heads, feed-forward F = 128, source S = 10, target T = 7.
    E, F, S, T = 64, 128, 10, 7
    encoder_layer = S * E * 3 * E + 2 * S * S * E + S * E * E + 2 * S * E * F
    decoder_layer = (T * E * 3 * E + 2 * T * T * E + T * E * E          # self-attention
                     + T * E * E + S * E * 2 * E + 2 * T * S * E + T * E * E   # cross-attention: q; k and v
                     + 2 * T * E * F)
    for batch_first in (True, False):
        model = torch.nn.Transformer(E, 4, 2, 2, F, batch_first=batch_first).eval()
        src, tgt = (torch.randn(1, S, E), torch.randn(1, T, E)) if batch_first else (torch.randn(S, 1, E), torch.randn(T, 1, E))
        net = ridge.from_torch(model, (src, tgt), batch_axis=0 if batch_first else 1)
        result = ridge.simulate(net, "a100-sxm4-40gb", batch=3)
        inputs = [row for row in result.layers.rows() if row["op"] == "input"]
        assert [row["name"] for row in inputs] == ["input", "tgt"]   # named after forward's parameters
        assert result.total("params") == torch_params(model)
        assert result.total("macs") == 3 * (2 * encoder_layer + 2 * decoder_layer)
    # A decoder alone: tgt and the memory it attends to.
    decoder = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(E, 4, F, batch_first=True), 3).eval()
    result = ridge.simulate(ridge.from_torch(decoder, (torch.randn(1, T, E), torch.randn(1, S, E))), "a100-sxm4-40gb", batch=1)
    assert result.total("params") == torch_params(decoder)
    assert result.total("macs") == 3 * decoder_layer


def test_from_torch_sequence_first_modules_take_their_batch_axis():
    # PyTorch's recurrent and transformer modules take [T, batch, features] unless batch_first:
    # batch_axis=1 says so. The same MACs as their batch-first forms (T = 10).
    lstm = torch.nn.LSTM(32, 48, num_layers=2).eval()
    result = ridge.simulate(ridge.from_torch(lstm, torch.randn(10, 1, 32), batch_axis=1), "a100-sxm4-40gb", batch=1)
    assert result.total("params") == torch_params(lstm)
    assert result.total("macs") == 10 * (4 * 48 * (32 + 48) + 4 * 48 * (48 + 48))
    encoder = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(64, 4, 128), 2).eval()
    result = ridge.simulate(ridge.from_torch(encoder, torch.randn(10, 1, 64), batch_axis=1), "a100-sxm4-40gb", batch=1)
    assert result.total("params") == torch_params(encoder)
    assert result.total("macs") == 2 * (4 * 10 * 64 * 64 + 2 * 10 * 64 * 128 + 2 * 10 * 10 * 64)
    with pytest.raises(ridge.RidgeError, match="the batch axis 3 is not an axis of an example input of shape \\[10, 1, 32\\]"):
        ridge.from_torch(lstm, torch.randn(10, 1, 32), batch_axis=3)


def test_from_torch_past_protobufs_2gib_exports_to_a_file(monkeypatch):
    # ViT-H/14 and RegNet-Y 128GF pass protobuf's 2 GiB, which torch.onnx.export cannot serialise into
    # memory ("the output file must be a file path"): from_torch then exports to a temporary file, the
    # data beside it. Here the in-memory export is made to fail the way torch's does for them.
    export = torch.onnx.export
    targets = []

    def too_large_in_memory(model, args, f, *rest, **kwargs):
        targets.append(f)
        if not isinstance(f, str):
            raise RuntimeError("The serialized model is larger than the 2GiB limit imposed by the protobuf library. "
                               "Therefore the output file must be a file path")
        return export(model, args, f, *rest, **kwargs)

    monkeypatch.setattr(torch.onnx, "export", too_large_in_memory)
    model = torchvision.models.resnet18(weights=None)
    net = ridge.from_torch(model, torch.randn(1, 3, 224, 224))
    assert isinstance(targets[-1], str) and targets[-1].endswith(".onnx")
    assert net.parameters == torch_params(model)
    assert ridge.simulate(net, "a100-sxm4-40gb", batch=1).total("params") == torch_params(model)


class _ZeroesPartOfItsBias(torch.nn.Module):
    """Swin V2's qkv bias in small: a copy of the bias with a slice zeroed in place (aten::zero)."""
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 6)

    def forward(self, x):
        bias = self.fc.bias.clone()
        bias[2:4].zero_()
        return torch.nn.functional.linear(x, self.fc.weight, bias)


def test_from_torch_lends_aten_zero_a_symbolic_and_takes_it_back():
    net = ridge.from_torch(_ZeroesPartOfItsBias(), torch.randn(1, 4))
    assert net.parameters == 4 * 6 + 6
    # torch 1.13's own exporter is left as it was: it still refuses aten::zero with its own error.
    if ridge._missing_symbolic("aten::zero"):
        with pytest.raises(torch.onnx.errors.UnsupportedOperatorError, match="aten::zero"):
            torch.onnx.export(_ZeroesPartOfItsBias(), torch.randn(1, 4), io.BytesIO(), opset_version=17)


@pytest.mark.parametrize("make,example", [
    (lambda: torch.nn.Conv3d(3, 8, 3, padding=1), (1, 3, 4, 8, 8)),
    (lambda: torch.nn.Sequential(torch.nn.Conv3d(3, 8, (1, 3, 3), stride=(1, 2, 2)), torch.nn.BatchNorm3d(8), torch.nn.ReLU(),
                                 torch.nn.MaxPool3d(2), torch.nn.AdaptiveAvgPool3d(1), torch.nn.Flatten(), torch.nn.Linear(8, 5)),
     (1, 3, 4, 16, 16)),
])
def test_from_torch_3d_convolution_modules_count_torch_parameters(make, example):
    # nn.Conv3d alone, and a small 3-D CNN: torch's own parameter counts (3*8*27 + 8 = 656 for the first).
    model = make().eval()
    net = ridge.from_torch(model, torch.randn(*example))
    assert net.free_nodes == []
    assert net.parameters == torch_params(model)
