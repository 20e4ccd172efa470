#!/usr/bin/env python3
"""Write a randomly initialised BERT of BERT-base size (12 layers, 12 heads, hidden 768): the cost
of the paper's model without its weights, which cannot be downloaded here. Uses the uncased
vocabulary of the test model (the same 30,522 tokens as bert-base-uncased).

With --like DIR, the shape (config.json) and the tokenizer files come from DIR instead: a model
that costs what DIR's costs, where DIR's weights cannot be had (tools/gpu_check.sh makes a
MiniLM-shaped one on a machine its 87 MiB of weights cannot travel to).

Run: python tools/make_random_bert.py [OUT_DIR] [--like DIR | --vocab-from DIR]
     (default OUT_DIR models/random-bert-base, vocabulary from models/all-MiniLM-L6-v2)
"""
import argparse
import shutil
from pathlib import Path

import torch
from transformers import BertConfig, BertModel

ROOT = Path(__file__).resolve().parent.parent
TOKENIZER_FILES = ("vocab.txt", "tokenizer_config.json", "special_tokens_map.json")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", nargs="?", default=ROOT / "models" / "random-bert-base", type=Path)
    p.add_argument("--like", type=Path, help="take the shape and the tokenizer from this checkpoint folder")
    p.add_argument("--vocab-from", type=Path, default=ROOT / "models" / "all-MiniLM-L6-v2",
                   help="take the tokenizer files from this folder (default: the test model)")
    args = p.parse_args()
    if (args.out / "model.safetensors").exists():
        print(f"{args.out}: present")
        return
    torch.manual_seed(0)
    if args.like:
        config = BertConfig.from_pretrained(args.like)
        source = args.like
    else:
        config = BertConfig(vocab_size=30522, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                            intermediate_size=3072, max_position_embeddings=512)
        source = args.vocab_from
    BertModel(config).eval().save_pretrained(args.out, safe_serialization=True)
    for name in TOKENIZER_FILES:
        if (source / name).exists():
            shutil.copy(source / name, args.out / name)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
