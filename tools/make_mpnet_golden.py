#!/usr/bin/env python3
"""Golden fixture of the real all-mpnet-base-v2 (MPNet, BERT-base's shape; tools/setup.sh fetches it
into models/all-mpnet-base-v2): transformers' tokenizer and eager attention on texts written for
this fixture, in no other. Written into tests/golden/mpnet/:
  real.json          per text its ids; for the first, which layers' head outputs are kept
  real.safetensors   for the first text: attention [L, H, n, n] of every layer; head_outputs
                     [3, H, n, d] of the first, a middle and the last layer (C = A V, V from the
                     model's own value projection); last_hidden [n, D]
Run: .venv/bin/python tools/make_mpnet_golden.py
"""
import json
from pathlib import Path

import torch
import transformers as tf
from safetensors.torch import save_file

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "models" / "all-mpnet-base-v2"
OUT = ROOT / "tests" / "golden" / "mpnet"
TEXTS = [
    "At the far end of the pier, a retired navigator sketched constellations; his granddaughter named each one.",
    "Señora Olsen's bakery opened at 5:45, sold 312 croissants, and closed—exhausted—before noon!",
    "Is the <mask> of a glacier measured in metres per day, or in centuries?",
    "\u00c9tude n\u00b0 7: tr\u00e8s lent. Z\u00fcrich \u2192 Gen\u00e8ve, 2\u00bd hours.",
]


def main():
    tokenizer = tf.AutoTokenizer.from_pretrained(MODEL)
    model = tf.MPNetModel.from_pretrained(MODEL, attn_implementation="eager").eval()
    config = model.config
    ids = [tokenizer(text)["input_ids"] for text in TEXTS]
    values = []
    hooks = [m.register_forward_hook(lambda _m, _i, out: values.append(out)) for n, m in model.named_modules()
             if n.endswith("attn.v")]
    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids[0]]), output_attentions=True)
    for h in hooks:
        h.remove()
    heads, layers = config.num_attention_heads, config.num_hidden_layers
    kept = [0, layers // 2, layers - 1]
    outputs = []
    for layer in kept:
        v = values[layer][0].view(len(ids[0]), heads, -1).transpose(0, 1)
        outputs.append(out.attentions[layer][0] @ v)
    OUT.mkdir(parents=True, exist_ok=True)
    save_file({"attention": torch.stack([a[0] for a in out.attentions]).contiguous(),
               "head_outputs": torch.stack(outputs).contiguous(),
               "last_hidden": out.last_hidden_state[0].contiguous()}, OUT / "real.safetensors")
    (OUT / "real.json").write_text(json.dumps({"model": "models/all-mpnet-base-v2", "texts": TEXTS, "ids": ids,
                                               "kept_layers": kept}, indent=1))
    print([len(i) for i in ids], "tokens")


if __name__ == "__main__":
    main()
