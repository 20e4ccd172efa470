#!/usr/bin/env python3
"""Writes tests/golden/tiny_distilbert/: a small DistilBERT with random weights (config.json,
vocab.txt, model.safetensors, saved by transformers itself) and expected.json, transformers'
attention maps and hidden states for a few texts, so the tests check that attnscope reads
DistilBERT's names and layout and runs it exactly as the reference does.

  .venv/bin/python tools/make_distilbert_golden.py
"""
import json
import pathlib

import torch
from transformers import BertTokenizer, DistilBertConfig, DistilBertModel

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden" / "tiny_distilbert"
WORDS = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "to", "it", "and", "was", "light", "##house", "keep", "##er", ".", ",", "!", "?"]
TEXTS = ["The cat sat on the mat.", "A dog ran to the lighthouse keeper, and it was light!", "cat"]


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS
    (OUT / "vocab.txt").write_text("\n".join(vocab) + "\n")
    torch.manual_seed(7)
    config = DistilBertConfig(vocab_size=len(vocab), dim=32, n_layers=2, n_heads=4, hidden_dim=40, max_position_embeddings=64,
                              activation="gelu", attn_implementation="eager")
    model = DistilBertModel(config).eval()
    with torch.no_grad():  # make the layer norms non-trivial too
        for name, p in model.named_parameters():
            if "layer_norm" in name.lower():
                p.add_(torch.randn_like(p) * 0.1)
    model.save_pretrained(OUT, safe_serialization=True)
    tokenizer = BertTokenizer(str(OUT / "vocab.txt"))
    cases = []
    for text in TEXTS:
        enc = tokenizer(text, return_tensors="pt")
        with torch.no_grad():
            out = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], output_attentions=True, output_hidden_states=True)
        cases.append({
            "text": text,
            "ids": enc["input_ids"][0].tolist(),
            "attention": [a[0].tolist() for a in out.attentions],
            "hidden_states": [h[0].tolist() for h in out.hidden_states],
        })
    (OUT / "expected.json").write_text(json.dumps({"cases": cases}))
    for p in sorted(OUT.iterdir()):
        print(p.name, p.stat().st_size)


if __name__ == "__main__":
    main()
