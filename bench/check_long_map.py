#!/usr/bin/env python3
"""One head's attention map of a long text as transformers' eager attention makes it, compared with
the map attnscope made again from the queries and keys it kept (bench_forward --dump-map). Only
the chosen layer's weights are kept: every layer's would need L x H x n x n floats.

  check_long_map.py --model DIR --layer L --head H --map FILE   (FILE.ids.json: the token ids)
"""
import argparse
import json
import sys

import numpy as np
import torch
from transformers import AutoModel
from transformers.models.modernbert import modeling_modernbert


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--model", required=True)
    p.add_argument("--layer", type=int, required=True)
    p.add_argument("--head", type=int, required=True)
    p.add_argument("--map", required=True)
    p.add_argument("--tolerance", type=float, default=1e-5)
    a = p.parse_args()
    ids = json.load(open(a.map + ".ids.json"))
    n = len(ids)
    ours = np.fromfile(a.map, dtype=np.float32).reshape(n, n)
    kept = {}
    eager = modeling_modernbert.eager_attention_forward

    def keep_one_layer(module, *args, **kwargs):
        out, weights = eager(module, *args, **kwargs)
        if module.layer_idx == a.layer:
            kept["map"] = weights[0, a.head].float().numpy().copy()
        return out, None

    modeling_modernbert.eager_attention_forward = keep_one_layer
    torch.set_num_threads(2)
    model = AutoModel.from_pretrained(a.model, attn_implementation="eager").eval()
    with torch.inference_mode():
        model(input_ids=torch.tensor([ids]))
    theirs = kept["map"]
    difference = float(np.abs(ours - theirs).max())
    print(json.dumps({"tokens": n, "layer": a.layer, "head": a.head, "max_abs_difference": difference}))
    sys.exit(0 if difference <= a.tolerance else 1)


if __name__ == "__main__":
    main()
