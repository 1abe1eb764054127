#!/usr/bin/python3
"""Makes the ONNX test fixtures in tests/onnx/models/ (run with Debian's python3: torch 1.13,
torchvision 0.14, python3-onnx 1.12):

    /usr/bin/python3 tests/onnx/make_fixtures.py

Each model is exported by torch.onnx.export as a user would (opset 17, the batch axis dynamic), with
training=TrainingMode.PRESERVE on an eval() model so batch norms stay batch norms (the EVAL default
folds them into the convolutions, which changes the parameter count), then stripped to shapes:
every initializer keeps its name, type and dims and loses its data, except tensors of at most 64
elements and integer tensors of at most 4096 (scalars and shape arithmetic, which the import folds). What Ridge reads from an initializer is its shape, so the fixtures stay small.

torchvision classifiers are built with weights=None (the parameter count does not depend on the
weights). BERT-base and GPT-2 small are built here from their configurations (bert-base-uncased,
gpt2), since Debian has no `transformers`, with the layers of models/bert_base.net and models/gpt2.net.
"""
import math
import os
import sys

import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "models")

TORCHVISION = [
    # in the zoo (models/*.net)
    "resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_large", "squeezenet1_1", "googlenet",
    "densenet121", "efficientnet_b0", "shufflenet_v2_x2_0",
    # not in the zoo
    "mnasnet1_0", "shufflenet_v2_x1_0", "regnet_x_400mf", "resnet101",
]


def strip(path):
    model = onnx.load(path)
    for t in model.graph.initializer:
        count = math.prod(t.dims)
        if count <= 64 or (t.data_type in (onnx.TensorProto.INT64, onnx.TensorProto.INT32) and count <= 4096):
            continue   # scalars and shape arithmetic: numbers the import folds
        for field in ("raw_data", "float_data", "int32_data", "int64_data", "double_data"):
            t.ClearField(field)
    onnx.save(model, path)


def export(model, example, path, input_names, dynamic_axes, fold=True, train=False):
    model.train(train)
    with torch.no_grad():
        torch.onnx.export(model, example, path, opset_version=17, input_names=input_names, output_names=["output"],
                          dynamic_axes=dynamic_axes, training=torch.onnx.TrainingMode.PRESERVE,
                          do_constant_folding=fold)
    strip(path)
    print(f"{os.path.basename(path)}: {os.path.getsize(path)} bytes, "
          f"{sum(p.numel() for p in model.parameters())} parameters", file=sys.stderr)


def torchvision_models(names):
    for name in names:
        kwargs = {"aux_logits": False, "init_weights": False} if name == "googlenet" else {}
        model = torchvision.models.get_model(name, weights=None, **kwargs)
        export(model, torch.randn(1, 3, 224, 224), os.path.join(OUT, name + ".onnx"), ["input"],
               {"input": {0: "batch"}, "output": {0: "batch"}})


class BertLayer(nn.Module):
    def __init__(self, hidden, heads, intermediate):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = (nn.Linear(hidden, hidden) for _ in range(3))
        self.attention_output_dense = nn.Linear(hidden, hidden)
        self.attention_output_LayerNorm = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate_dense = nn.Linear(hidden, intermediate)
        self.output_dense = nn.Linear(intermediate, hidden)
        self.output_LayerNorm = nn.LayerNorm(hidden, eps=1e-12)
        self.attention_output_dropout, self.output_dropout = nn.Dropout(0.1), nn.Dropout(0.1)

    def split_heads(self, x):
        b, t, c = x.shape
        return x.view(b, t, self.heads, c // self.heads).permute(0, 2, 1, 3)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.split_heads(self.query(x)), self.split_heads(self.key(x)), self.split_heads(self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(c // self.heads)
        y = (scores.softmax(-1) @ v).permute(0, 2, 1, 3).reshape(b, t, c)
        x = self.attention_output_LayerNorm(self.attention_output_dropout(self.attention_output_dense(y)) + x)
        y = self.output_dropout(self.output_dense(F.gelu(self.intermediate_dense(x))))
        return self.output_LayerNorm(y + x)


class Bert(nn.Module):
    """BertModel (bert-base-uncased) with the pooler: vocab 30522, 512 positions, 2 token types, hidden 768,
    12 layers, 12 heads, intermediate 3072, erf GELU. Every token in segment A (token type row 0)."""

    def __init__(self, vocab=30522, positions=512, types=2, hidden=768, layers=12, heads=12, intermediate=3072):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(positions, hidden)
        self.token_type_embeddings = nn.Embedding(types, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(0.1)
        self.layer = nn.ModuleList(BertLayer(hidden, heads, intermediate) for _ in range(layers))
        self.pooler_dense = nn.Linear(hidden, hidden)

    def forward(self, ids):
        t = ids.shape[1]
        x = self.word_embeddings(ids) + self.token_type_embeddings.weight[:1] + self.position_embeddings.weight[:t]
        x = self.dropout(self.LayerNorm(x))
        for layer in self.layer:
            x = layer(x)
        return torch.tanh(self.pooler_dense(x[:, 0]))


class Gpt2Block(nn.Module):
    def __init__(self, hidden, heads, n_ctx):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(hidden)
        self.c_attn = nn.Linear(hidden, 3 * hidden)
        self.c_proj = nn.Linear(hidden, hidden)
        self.ln_2 = nn.LayerNorm(hidden)
        self.c_fc = nn.Linear(hidden, 4 * hidden)
        self.mlp_c_proj = nn.Linear(4 * hidden, hidden)
        self.resid_dropout, self.mlp_dropout = nn.Dropout(0.1), nn.Dropout(0.1)
        self.register_buffer("bias", torch.tril(torch.ones(n_ctx, n_ctx, dtype=torch.bool)).view(1, 1, n_ctx, n_ctx))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).permute(0, 2, 1, 3) for z in (q, k, v))
        scores = q @ k.transpose(-1, -2) / math.sqrt(c // self.heads)
        scores = scores.masked_fill(~self.bias[:, :, :t, :t], float("-inf"))
        y = (scores.softmax(-1) @ v).permute(0, 2, 1, 3).reshape(b, t, c)
        x = x + self.resid_dropout(self.c_proj(y))
        return x + self.mlp_dropout(self.mlp_c_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")))


class Gpt2(nn.Module):
    """GPT2LMHeadModel (gpt2): vocab 50257, 1024 positions, hidden 768, 12 layers, 12 heads, tanh GELU,
    the LM head tied to the token embedding."""

    def __init__(self, vocab=50257, n_ctx=1024, hidden=768, layers=12, heads=12):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(n_ctx, hidden)
        self.drop = nn.Dropout(0.1)
        self.h = nn.ModuleList(Gpt2Block(hidden, heads, n_ctx) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, ids):
        x = self.drop(self.wte(ids) + self.wpe.weight[: ids.shape[1]])
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def language_models():
    axes = {"input_ids": {0: "batch", 1: "sequence"}, "output": {0: "batch"}}
    ids = torch.zeros(1, 8, dtype=torch.long)
    # In training mode, so the dropouts (which the zoo's .net files hold: they cost in training) are
    # exported; these models have no batch norm for it to change. No constant folding: it would fold slices of the tables (BERT's token type row, GPT-2's
    # positions) and the LM head's transposed weight into copies, changing what is counted (and
    # GPT-2's tie, one parameter counted once, would be lost).
    export(Bert(), ids, os.path.join(OUT, "bert_base.onnx"), ["input_ids"], axes, fold=False, train=True)
    export(Gpt2(), ids, os.path.join(OUT, "gpt2.onnx"), ["input_ids"], {**axes, "output": {0: "batch", 1: "sequence"}},
           fold=False, train=True)


class TinyConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 5)

    def forward(self, x):
        y = F.hardswish(self.bn(self.conv(x)))
        y = F.max_pool2d(y, 2) + F.avg_pool2d(y, 2)
        y = F.interpolate(y, scale_factor=2.0, mode="nearest")
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1)).softmax(-1)


class TinyShapes(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(11, 8)
        self.pos = nn.Parameter(torch.zeros(1, 16, 8))
        self.ln = nn.LayerNorm(8)
        self.qkv = nn.Linear(8, 24)
        self.lstm = nn.LSTM(8, 6, batch_first=True)

    def forward(self, ids):
        b, t = ids.shape
        x = self.ln(self.emb(ids) + self.pos[:, :t])
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, t, 2, 4).transpose(1, 2)
        k = k.view(b, t, 2, 4).transpose(1, 2)
        a = (q @ k.transpose(-1, -2) / 2.0).softmax(-1)
        y = (a @ v.view(b, t, 2, 4).transpose(1, 2)).transpose(1, 2).reshape(b, t, 8)
        y = F.gelu(y)
        return self.lstm(y)[0]


def swin_tiny():
    """torchvision's SwinTransformer at a size a test can work by hand: 4x4 patches of a 32x32 image
    (8x8 tokens of 16 channels), two stages of two blocks (2 then 4 heads) with 4x4 windows: stage 1
    has four windows and shifts them in its second block (the mask built from shapes); patch merging
    to 4x4 tokens of 32; stage 2's one window covers the map, so nothing shifts. 10 classes. Exported
    without constant folding, so each block's relative-position bias stays its [49, heads] table
    gathered by a fixed index."""
    from torchvision.models.swin_transformer import SwinTransformer
    torch.manual_seed(0)
    model = SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
                            num_classes=10).eval()
    export(model, torch.randn(1, 3, 32, 32), os.path.join(OUT, "swin_tiny.onnx"), ["input"],
           {"input": {0: "batch"}, "output": {0: "batch"}}, fold=False)


def swin_v2_tiny():
    """swin_tiny's shape with Swin V2's blocks and patch merging (torchvision's swin_v2_t family): each
    block's relative-position bias is a small MLP (2 -> 512 -> heads) over a fixed coordinates buffer,
    its attention is cosine (F.normalize, a clamped learned logit scale) and it zeroes the keys' part of
    a copy of its qkv bias (aten::zero, exported as x - x as ridge.from_torch does). Exported without
    constant folding; the buffers' names are listed in the test. Parameters get small noise first, so the
    exporter merges no equal-valued tensors."""
    from torchvision.models.swin_transformer import PatchMergingV2, SwinTransformer, SwinTransformerBlockV2
    torch.manual_seed(0)
    model = SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
                            num_classes=10, block=SwinTransformerBlockV2, downsample_layer=PatchMergingV2).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 1e-3)
    torch.onnx.register_custom_op_symbolic("aten::zero", lambda g, x: g.op("Sub", x, x), 9)
    export(model, torch.randn(1, 3, 32, 32), os.path.join(OUT, "swin_v2_tiny.onnx"), ["input"],
           {"input": {0: "batch"}, "output": {0: "batch"}}, fold=False)
    print("buffers:", sorted(n for n, b in model.named_buffers() if b.is_floating_point()), file=sys.stderr)


def fuzz_seeds():
    """Tiny exports for the fuzz target's seed corpus (tests/fuzz/seeds/onnx), kept with their data."""
    out = os.path.join(HERE, "..", "fuzz", "seeds", "onnx")
    os.makedirs(out, exist_ok=True)
    for name, model, example, axes in [
        ("tiny_conv", TinyConv(), torch.randn(1, 3, 8, 8), {"input": {0: "batch"}}),
        ("tiny_shapes", TinyShapes(), torch.zeros(1, 5, dtype=torch.long), {"input": {0: "batch", 1: "seq_len"}}),
    ]:
        path = os.path.join(out, name + ".onnx")
        model.eval()
        torch.onnx.export(model, example, path, opset_version=17, input_names=["input"], dynamic_axes=axes,
                          training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
        print(f"{name}.onnx: {os.path.getsize(path)} bytes", file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1:] == ["fuzz-seeds"]:
        fuzz_seeds()
        sys.exit(0)
    os.makedirs(OUT, exist_ok=True)
    which = sys.argv[1:]
    torchvision_models([n for n in TORCHVISION if not which or n in which])
    if not which or "bert_base" in which or "gpt2" in which:
        language_models()
    if not which or "swin_tiny" in which:
        swin_tiny()
    if not which or "swin_v2_tiny" in which:
        swin_v2_tiny()
