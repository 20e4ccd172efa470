#!/usr/bin/env python3
"""Write a randomly initialised BERT of BERT-base size (12 layers, 12 heads, hidden 768): the cost
of the paper's model without its weights, which cannot be downloaded here. Uses the uncased
vocabulary of the test model (the same 30,522 tokens as bert-base-uncased).

Run: .venv/bin/python tools/make_random_bert.py [OUT_DIR]   (default models/random-bert-base)
"""
import shutil
import sys
from pathlib import Path

import torch
from transformers import BertConfig, BertModel

ROOT = Path(__file__).resolve().parent.parent


def main(out):
    out = Path(out)
    if (out / "model.safetensors").exists():
        print(f"{out}: present")
        return
    torch.manual_seed(0)
    config = BertConfig(vocab_size=30522, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                        intermediate_size=3072, max_position_embeddings=512)
    BertModel(config).eval().save_pretrained(out, safe_serialization=True)
    source = ROOT / "models" / "all-MiniLM-L6-v2"
    for name in ("vocab.txt", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(source / name, out / name)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ROOT / "models" / "random-bert-base")
