#!/usr/bin/env python3
"""Writes tests/golden/minilm_lenses.json: the lenses of issue 14 on the real MiniLM checkpoint,
computed in numpy from their definitions on transformers' outputs (no code shared with the core):

  value_norms[l][h][j]  ||f_h(x_j)||, f_h(x_j) = v_j^h W_O^h (the value projection's output for
                        head h, through the head's columns of attention.output.dense)
  layer_norm[l][i][j]   ||sum_h A^h_ij f_h(x_j)||, summed as D-dimensional vectors (the core
                        takes it from a Gram matrix instead)
  rollout[l][i][j]      R_0 = Ahat_0, R_l = Ahat_l R_(l-1), Ahat_l = rows of (mean_h A^h_l + I) normalised
  word_attention        the attention maps over words (the fast tokenizer's word_ids(); special tokens
                        each a word of their own): summed over attended pieces, averaged over querying ones
  word_outputs_sum      per layer and head, the sum of the word-level head outputs (mean of a word's pieces)

for two texts (`--held-out` writes other texts, for a check on texts the fixture never saw).

Run: .venv/bin/python tools/make_lens_golden.py [--model DIR] [--out FILE]
"""
import argparse
import json
from pathlib import Path

import numpy as np
import torch
from transformers import BertModel, BertTokenizer, BertTokenizerFast

ROOT = Path(__file__).resolve().parent.parent
TEXTS = ["The keeper lit the lamp at dusk. Ships passed the rocks safely.",
         "Maria read the poem twice, and Tom said the river was its heartbeat.",
         "Stonemasons electrified the lighthouse; unbelievably, its keeper disapproved."]


def lenses(model_dir, text):
    tok = BertTokenizer.from_pretrained(model_dir)
    model = BertModel.from_pretrained(model_dir, attn_implementation="eager").eval()
    values = {}
    hooks = [layer.attention.self.value.register_forward_hook(lambda m, i, o, l=l: values.__setitem__(l, o[0].double().numpy()))
             for l, layer in enumerate(model.encoder.layer)]
    enc = tok(text, return_tensors="pt")
    with torch.inference_mode():
        out = model(**enc, output_attentions=True)
    for h in hooks:
        h.remove()
    cfg = model.config
    H, D = cfg.num_attention_heads, cfg.hidden_size
    d = D // H
    attention = np.stack([a[0].double().numpy() for a in out.attentions])  # [L, H, n, n]
    L, _, n, _ = attention.shape
    norms = np.zeros((L, H, n))
    layer_norm = np.zeros((L, n, n))
    for l in range(L):
        w_o = model.encoder.layer[l].attention.output.dense.weight.detach().double().numpy()  # [D out, D in]
        f = np.stack([values[l][:, h * d:(h + 1) * d] @ w_o[:, h * d:(h + 1) * d].T for h in range(H)])  # [H, n, D]
        norms[l] = np.linalg.norm(f, axis=-1)
        moved = np.einsum("hij,hjk->ijk", attention[l], f)  # [n, n, D]: sum_h A^h_ij f_h(x_j)
        layer_norm[l] = np.linalg.norm(moved, axis=-1)
    rollout = np.zeros((L, n, n))
    for l in range(L):
        a_hat = attention[l].mean(0) + np.eye(n)
        a_hat = a_hat / a_hat.sum(-1, keepdims=True)
        rollout[l] = a_hat if l == 0 else a_hat @ rollout[l - 1]
    word_ids = BertTokenizerFast.from_pretrained(model_dir)(text).word_ids()
    groups, last = [], None  # pieces of each word, in order; a special token (word id None) is a word alone
    for i, w in enumerate(word_ids):
        if w is None or w != last:
            groups.append([])
        groups[-1].append(i)
        last = w
    member = np.zeros((len(groups), n))
    for a, pieces in enumerate(groups):
        member[a, pieces] = 1
    mean = member / member.sum(1, keepdims=True)
    word_attention = np.einsum("ai,lhij,bj->lhab", mean, attention, member)
    head_out = np.stack([out_l for out_l in head_outputs(model, enc)])  # [L, H, n, d]
    word_outputs = np.einsum("ai,lhid->lhad", mean, head_out)
    return {"text": text, "ids": enc["input_ids"][0].tolist(), "value_norms": norms.tolist(), "layer_norm": layer_norm.tolist(),
            "rollout": rollout.tolist(), "words": [len(g) for g in groups], "word_attention": word_attention.tolist(),
            "word_outputs_sum": word_outputs.sum(axis=(2, 3)).tolist()}


def head_outputs(model, enc):
    """C = A V of every layer and head, [L, H, n, d], from the self-attention module's context output."""
    outputs = {}
    hooks = [layer.attention.self.register_forward_hook(lambda m, i, o, l=l: outputs.__setitem__(l, o[0]))
             for l, layer in enumerate(model.encoder.layer)]
    with torch.inference_mode():
        model(**enc)
    for h in hooks:
        h.remove()
    cfg = model.config
    n, H = enc["input_ids"].shape[1], cfg.num_attention_heads
    return [outputs[l][0].view(n, H, -1).transpose(0, 1).double().numpy() for l in range(cfg.num_hidden_layers)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default=str(ROOT / "models/all-MiniLM-L6-v2"))
    p.add_argument("--out", default=str(ROOT / "tests/golden/minilm_lenses.json"))
    p.add_argument("--text", action="append", help="texts instead of the fixture's (held-out checks)")
    a = p.parse_args()
    Path(a.out).write_text(json.dumps({"cases": [lenses(a.model, t) for t in (a.text or TEXTS)]}) + "\n")


if __name__ == "__main__":
    main()
