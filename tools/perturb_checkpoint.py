#!/usr/bin/env python3
"""Writes a copy of a BERT checkpoint folder with edited weights, to try comparison on: Gaussian
noise of --noise times each weight matrix's standard deviation on every matrix of the encoder
layers, and/or (--permute-heads) each layer's heads shuffled in the weights (query, key and value
rows and the attention output columns move together, so the model computes the same thing with
its heads in another order; the permutation is printed as JSON).

Run: .venv/bin/python tools/perturb_checkpoint.py SRC DST [--noise 0.05] [--permute-heads] [--seed 0]
then: attnscope-cli compare --model SRC --model-b DST --text "..."
"""
import argparse
import json
import re
import shutil
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file


def main():
    p = argparse.ArgumentParser()
    p.add_argument("src", type=Path)
    p.add_argument("dst", type=Path)
    p.add_argument("--noise", type=float, default=0.0)
    p.add_argument("--permute-heads", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    if args.dst.exists():
        raise SystemExit(f"{args.dst} exists; give a new folder")
    config = json.loads((args.src / "config.json").read_text())
    heads, layers = config["num_attention_heads"], config["num_hidden_layers"]
    generator = torch.Generator().manual_seed(args.seed)
    order = {l: torch.randperm(heads, generator=generator).tolist() for l in range(layers)} if args.permute_heads else {}
    tensors = load_file(args.src / "model.safetensors")
    projection = re.compile(r"layer\.(\d+)\.attention\.(self\.(query|key|value)\.(weight|bias)|output\.dense\.weight)$")
    for name, value in tensors.items():
        m = projection.search(name)
        if m and order:
            dim = 1 if m.group(2) == "output.dense.weight" else 0
            size = value.shape[dim] // heads
            value = torch.cat([value.narrow(dim, h * size, size) for h in order[int(m.group(1))]], dim)
        if args.noise > 0 and value.dim() == 2 and "encoder.layer." in name:
            value = value + torch.randn(value.shape, generator=generator) * args.noise * value.std()
        tensors[name] = value.contiguous()
    shutil.copytree(args.src, args.dst, ignore=shutil.ignore_patterns("model.safetensors"))
    save_file(tensors, args.dst / "model.safetensors", metadata={"format": "pt"})
    if order:
        print(json.dumps({"head j of the copy is head order[l][j] of the original": order}))


if __name__ == "__main__":
    main()
