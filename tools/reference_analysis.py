#!/usr/bin/env python3
"""An independent implementation of docs METHOD.md (the paper's analysis) in numpy, on the
reference model's outputs (transformers BertModel, eager attention). It shares no code with the C++
core; tests/golden/minilm_analysis.json, written from it, is what the core's analysis is checked
against.

Run: .venv/bin/python tools/reference_analysis.py [--model DIR] [--out FILE]
"""
import argparse
import json
from pathlib import Path

import numpy as np
import torch
from transformers import BertModel, BertTokenizer

ROOT = Path(__file__).resolve().parent.parent
TERMINATORS = {".", "!", "?"}
# Values this close to a threshold may fall on either side in float32 (whose error here is about
# 1e-6); they are listed apart.
BAND = 1e-5
# Heads whose full pair lists go into the fixture; the others are summarised by checksums.
LISTED_HEADS = {(0, 0), (2, 5), (5, 8), (5, 11)}


def run_model(model_dir, text, max_length=128):
    """Token strings, ids, special flags, attention [L,H,n,n] and head outputs [L,H,n,d]."""
    tok = BertTokenizer.from_pretrained(model_dir)
    model = BertModel.from_pretrained(model_dir, attn_implementation="eager").eval()
    outputs = {}
    hooks = [layer.attention.self.register_forward_hook(lambda m, i, o, l=l: outputs.__setitem__(l, o[0]))
             for l, layer in enumerate(model.encoder.layer)]
    enc = tok(text, truncation=True, max_length=max_length, return_tensors="pt", return_special_tokens_mask=True)
    with torch.inference_mode():
        out = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], output_attentions=True)
    for h in hooks:
        h.remove()
    cfg = model.config
    n, nh = enc["input_ids"].shape[1], cfg.num_attention_heads
    d = cfg.hidden_size // nh
    attention = np.stack([a[0].double().numpy() for a in out.attentions])
    head_out = np.stack([outputs[l][0].view(n, nh, d).transpose(0, 1).double().numpy() for l in range(cfg.num_hidden_layers)])
    ids = enc["input_ids"][0].tolist()
    tokens = tok.convert_ids_to_tokens(ids)
    special = [t in tok.all_special_tokens for t in tokens]
    return tokens, ids, special, attention, head_out


def similarity(c):
    s = c @ c.T
    norms = np.sqrt(np.diag(s))
    s = s.copy()
    np.fill_diagonal(s, 0.0)
    return s, norms


def high_similarity(s, valid, tau):
    """S_hat values and the pairs (i < j) with S_hat >= tau, over valid tokens, diagonal excluded."""
    n = s.shape[0]
    allowed = np.outer(valid, valid) & ~np.eye(n, dtype=bool)
    if not allowed.any():
        return None, []
    top = s[allowed].max()
    if top <= 0:
        return None, []
    s_hat = s / top
    pairs = [(i, j, float(s_hat[i, j])) for i in range(n) for j in range(i + 1, n) if allowed[i, j] and s_hat[i, j] >= tau]
    return s_hat, pairs


def separators(attention_map, tau_sep):
    column = attention_map.sum(axis=0)
    column_hat = column / column.max()
    return [int(j) for j in np.nonzero(column_hat >= tau_sep)[0]], column_hat


def segments(seps, n):
    out, start = [], 0
    for p in sorted(seps):
        out.append((start, p))
        start = p + 1
    if start <= n - 1:
        out.append((start, n - 1))
    return out


def block_average(s, segs):
    n = s.shape[0]
    r = np.full((n, n), np.nan)
    for a0, a1 in segs:
        for b0, b1 in segs:
            vals = [s[i, j] for i in range(a0, a1 + 1) for j in range(b0, b1 + 1) if i != j]
            if vals:
                r[a0:a1 + 1, b0:b1 + 1] = np.mean(vals)
    return r


def punctuation_sentences(tokens):
    n, sent, current = len(tokens), [], 0
    for i, t in enumerate(tokens):
        if i > 0 and tokens[i - 1] in TERMINATORS and t not in TERMINATORS and not (i == n - 1 and t == "[SEP]"):
            current += 1
        sent.append(current)
    return sent


def segment_sentences(segs, n):
    sent = [0] * n
    for k, (a, b) in enumerate(segs):
        for i in range(a, b + 1):
            sent[i] = k
    return sent


def head_stats(pairs, ids, sent, valid):
    n_valid = int(np.sum(valid))
    total = n_valid * (n_valid - 1) // 2
    stats = {"count": len(pairs), "density": len(pairs) / total if total else None}
    vi = [i for i in range(len(ids)) if valid[i]]
    same = sum(1 for a in range(len(vi)) for b in range(a + 1, len(vi)) if sent[vi[a]] == sent[vi[b]])
    stats["chance_same_sentence"] = same / total if total else None
    if not pairs:
        stats.update({"repeat_share": None, "same_sentence_repeat_share": None, "same_sentence_share": None,
                      "mean_distance": None, "anchor_index": None, "anchor_id": None, "anchor_share": None,
                      "distance_histogram": {}})
        return stats
    p = len(pairs)
    stats["repeat_share"] = sum(ids[i] == ids[j] for i, j, _ in pairs) / p
    stats["same_sentence_repeat_share"] = sum(ids[i] == ids[j] and sent[i] == sent[j] for i, j, _ in pairs) / p
    stats["same_sentence_share"] = sum(sent[i] == sent[j] for i, j, _ in pairs) / p
    distances = [j - i for i, j, _ in pairs]
    stats["mean_distance"] = float(np.mean(distances))
    hist = {}
    for dist in distances:
        hist[dist] = hist.get(dist, 0) + 1
    stats["distance_histogram"] = {str(k): v for k, v in sorted(hist.items())}
    degree = np.zeros(len(ids), dtype=int)
    for i, j, _ in pairs:
        degree[i] += 1
        degree[j] += 1
    k = int(np.argmax(degree))  # the first maximum: ties go to the lowest position
    stats.update({"anchor_index": k, "anchor_id": ids[k], "anchor_share": degree[k] / p})
    return stats


def pair_summary(pairs, n, tau):
    """Count and checksums of the pairs clear of the threshold, and the borderline ones."""
    clear = [(i, j) for i, j, v in pairs if abs(v - tau) >= BAND]
    keys = [i * n + j for i, j in clear]
    return {"clear_count": len(clear), "clear_key_sum": sum(keys), "clear_key_square_sum": sum(k * k for k in keys)}


def borderline_pairs(s_hat, valid, tau):
    if s_hat is None:
        return []
    n = s_hat.shape[0]
    return [[i, j, float(s_hat[i, j])] for i in range(n) for j in range(i + 1, n)
            if valid[i] and valid[j] and abs(s_hat[i, j] - tau) < BAND]


def analyse(model_dir, text, tau=0.3, tau_sep=0.5, include_special=True, sentences="punct"):
    tokens, ids, special, attention, head_out = run_model(model_dir, text)
    L, H, n, _ = attention.shape
    valid = np.array([include_special or not s for s in special])
    last_sum = attention[L - 1].sum(axis=0)
    seg_seps, _ = separators(last_sum, tau_sep)
    segs = segments(seg_seps, n)
    sent = punctuation_sentences(tokens) if sentences == "punct" else segment_sentences(segs, n)
    heads, layers = [], []
    for l in range(L):
        layer_sum = np.zeros((n, n))
        anchors, pooled = set(), {}
        for h in range(H):
            s, norms = similarity(head_out[l, h])
            layer_sum += s
            s_hat, pairs = high_similarity(s, valid, tau)
            seps, column_hat = separators(attention[l, h], tau_sep)
            stats = head_stats([(i, j, v) for i, j, v in pairs], ids, sent, valid)
            if stats["anchor_id"] is not None:
                anchors.add(stats["anchor_id"])
            for k, v in stats["distance_histogram"].items():
                pooled[k] = pooled.get(k, 0) + v
            own_segs = segments(seps, n)
            blocks = block_average(s, own_segs)
            entry = {"layer": l, "head": h, "scale": float(s[np.outer(valid, valid) & ~np.eye(n, dtype=bool)].max()),
                     "separators": seps,
                     "separator_borderline": [int(j) for j in np.nonzero(np.abs(column_hat - tau_sep) < BAND)[0]],
                     "borderline": borderline_pairs(s_hat, valid, tau), **pair_summary(pairs, n, tau),
                     "stats": stats, "norms_sum": float(norms.sum()), "similarity_sum": float(s.sum()),
                     "block_average_sum": float(np.nansum(blocks)),
                     "block_average_defined": int(np.sum(~np.isnan(blocks)))}
            if (l, h) in LISTED_HEADS:
                entry["pairs"] = [[i, j, v] for i, j, v in pairs]
            heads.append(entry)
        layers.append({"layer": l, "distinct_anchors": len(anchors), "summed_similarity_sum": float(layer_sum.sum()),
                       "distance_histogram": dict(sorted(pooled.items(), key=lambda kv: int(kv[0])))})
    return {"text": text, "tokens": tokens, "ids": ids, "tau": tau, "tau_sep": tau_sep,
            "include_special": include_special, "sentence_mode": sentences, "sentences": sent,
            "segment_separators": seg_seps, "heads": heads, "layers": layers}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default=str(ROOT / "models" / "all-MiniLM-L6-v2"))
    p.add_argument("--out", default=str(ROOT / "tests" / "golden" / "minilm_analysis.json"))
    a = p.parse_args()
    torch.set_num_threads(2)
    ex = ROOT / "assets" / "examples"
    cases = [analyse(a.model, (ex / "lighthouse.txt").read_text()),
             analyse(a.model, (ex / "classroom.txt").read_text(), include_special=False),
             analyse(a.model, (ex / "research.txt").read_text(), tau=0.2, tau_sep=0.4, sentences="segments")]
    Path(a.out).write_text(json.dumps({"cases": cases}) + "\n")
    print(f"wrote {a.out}: {len(cases)} texts")


if __name__ == "__main__":
    main()
