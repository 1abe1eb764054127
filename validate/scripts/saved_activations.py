#!/usr/bin/python3
"""What PyTorch keeps for backward: the bytes of every tensor autograd saves during one training-mode
forward of each torchvision network (torch.autograd.graph.saved_tensors_hooks), each storage counted
once, parameters left out, the network input kept (the first layer saves it). This is the truth for
Ridge's saved_activation_bytes (the training memory beside weights, gradients and optimizer states).

  validate/scripts/saved_activations.py [--batch 2] [--out validate/saved/torchvision.csv] [NET ...]

Writes network,batch,dtype,saved_bytes,torch,command rows. Runs on the CPU with Debian's python3-torch
and python3-torchvision; a few seconds per network. aux_logits=False for GoogLeNet and Inception v3, as
the zoo's .net files (their auxiliary heads run only in training and are not in the pretrained models).
"""
import argparse
import csv
import sys

import torch
import torchvision

NETWORKS = ["alexnet", "convnext_tiny", "densenet121", "efficientnet_b0", "efficientnet_b1", "efficientnet_b2",
            "efficientnet_b3", "efficientnet_b4", "efficientnet_v2_s", "googlenet", "inception_v3", "mobilenet_v2",
            "mobilenet_v3_large", "mobilenet_v3_small", "regnet_y_400mf", "resnet18", "resnet34", "resnet50",
            "resnext50_32x4d", "shufflenet_v2_x2_0", "squeezenet1_0", "squeezenet1_1", "swin_t", "vgg11", "vgg13",
            "vgg16", "vgg16_bn", "vgg19", "vit_b_16", "vit_b_32", "wide_resnet50_2"]
# The input sizes the zoo's .net files default to (torchvision's evaluation resolutions).
SIZE = {"inception_v3": 299, "efficientnet_b1": 240, "efficientnet_b2": 288, "efficientnet_b3": 300,
        "efficientnet_b4": 380, "efficientnet_v2_s": 384}


def storage_of(t):
    s = t.storage() if hasattr(t, "storage") else t.untyped_storage()
    return s.data_ptr(), s.nbytes()


def saved_bytes(model, x):
    kept = {}

    def pack(t):
        ptr, size = storage_of(t)
        kept[ptr] = max(kept.get(ptr, 0), size)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    params = {storage_of(p)[0] for p in model.parameters()} | {storage_of(b)[0] for b in model.buffers()}
    return sum(size for ptr, size in kept.items() if ptr not in params)


def build(name):
    kwargs = {"aux_logits": False, "init_weights": False} if name in ("googlenet", "inception_v3") else {}
    return getattr(torchvision.models, name)(**kwargs).train()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--out", default="validate/saved/torchvision.csv")
    ap.add_argument("networks", nargs="*", default=NETWORKS)
    a = ap.parse_args()
    torch.manual_seed(0)
    rows = []
    for name in a.networks:
        size = SIZE.get(name, 224)
        x = torch.randn(a.batch, 3, size, size)
        b = saved_bytes(build(name), x)
        rows.append({"network": name, "batch": a.batch, "dtype": "fp32", "saved_bytes": b, "torch": torch.__version__,
                     "command": f"validate/scripts/saved_activations.py --batch {a.batch} {name}"})
        print(f"{name}: {b / 2**20:.2f} MiB", file=sys.stderr)
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
