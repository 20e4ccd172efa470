#!/usr/bin/env python3
"""Write randomly initialised encoders of base size, one per architecture attnscope reads besides
BERT, for the speed benchmark (bench/run_encoders.sh): the cost of each architecture without its
weights, which cannot be downloaded here. Each gets the matching trained tokenizer of
tests/golden/tokenizers (its vocabulary size is the embedding matrix's; the forward's cost does
not depend on it).

Run: .venv/bin/python tools/make_random_encoders.py   (writes models/random-<arch>-base)
"""
import shutil
from pathlib import Path

import torch
import transformers as tf

ROOT = Path(__file__).resolve().parent.parent
TOKENIZERS = ROOT / "tests" / "golden" / "tokenizers"
BASE = dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072)


def encoders():
    return {
        "roberta": ("roberta_bpe", 1201, lambda v: tf.RobertaModel(tf.RobertaConfig(vocab_size=v, max_position_embeddings=514, type_vocab_size=1,
                                                                                        pad_token_id=1, **BASE))),
        "xlm-roberta": ("xlmr_unigram", 802, lambda v: tf.XLMRobertaModel(tf.XLMRobertaConfig(vocab_size=v, max_position_embeddings=514,
                                                                                              type_vocab_size=1, pad_token_id=1, **BASE))),
        "electra": ("bert_cased_wordpiece", 1500, lambda v: tf.ElectraModel(tf.ElectraConfig(vocab_size=v, embedding_size=768, **BASE))),
        "albert": ("albert_unigram", 800, lambda v: tf.AlbertModel(tf.AlbertConfig(vocab_size=v, embedding_size=128, hidden_act="gelu_new", **BASE))),
        "modernbert": ("modernbert_bpe", 1201, lambda v: tf.ModernBertModel(tf.ModernBertConfig(
            vocab_size=v, hidden_size=768, num_hidden_layers=22, num_attention_heads=12, intermediate_size=1152, max_position_embeddings=8192,
            pad_token_id=3, bos_token_id=1, eos_token_id=2, cls_token_id=1, sep_token_id=2))),
    }


def main():
    for name, (tokenizer, vocab, build) in encoders().items():
        out = ROOT / "models" / f"random-{name}-base"
        if (out / "model.safetensors").exists():
            print(f"{out}: present")
            continue
        torch.manual_seed(0)
        build(vocab).eval().save_pretrained(out, safe_serialization=True)
        shutil.copy(TOKENIZERS / tokenizer / "tokenizer.json", out / "tokenizer.json")
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
