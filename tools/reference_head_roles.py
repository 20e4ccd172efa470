#!/usr/bin/env python3
"""An independent implementation of METHOD.md's head roles in numpy, on transformers' eager
attention maps of MiniLM: every role's score for every head on two texts, and induction on the
probe (50 tokens drawn by SplitMix64 from seed 2022 modulo the vocabulary, special tokens drawn
again, run as [CLS] probe probe [SEP]). It shares no code with core/analysis/head_roles.cpp;
tests/golden/minilm_head_roles.json, written from it, is what the core is checked against.

The same for decoders (METHOD.md, "Decoders"), on the tiny random checkpoints of
tests/golden/decoders and the first token-id list of each: a row sees the tokens up to itself (in a
sliding-window layer of width w, the last w of them), so the next-token and end-token roles are
undefined, and a row's entropy is divided by the log of the number of tokens it sees (the first
row, which sees one, left out). Written to tests/golden/decoder_head_roles.json.

Run: .venv/bin/python tools/reference_head_roles.py
"""
import json
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModelForCausalLM, BertModel, BertTokenizer

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "models" / "all-MiniLM-L6-v2"
TEXTS = [
    "The cat sat on the mat, and the cat slept. Then the dog came; the dog barked at the cat.",
    "Paris is the capital of France. Berlin is the capital of Germany. Rome, the capital of Italy, is old.",
]


def splitmix64(seed):
    state = seed
    mask = (1 << 64) - 1
    while True:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        yield z ^ (z >> 31)


def probe(vocab_size, excluded, period=50, seed=2022):
    out = []
    for value in splitmix64(seed):
        token = value % vocab_size
        if token not in excluded:
            out.append(token)
        if len(out) == period:
            return out


def roles(attention, ids, seen=None):
    """attention: [L, H, n, n] float64. Scores per role as [L][H] lists (None where undefined).
    seen: a decoder's, seen[l][i] the number of tokens row i of layer l may attend to (an encoder's
    rows see all n)."""
    L, H, n, _ = attention.shape
    decoder = seen is not None
    if not decoder:
        seen = [[n] * n for _ in range(L)]
    result = {}
    result["previous token"] = [[float(np.mean([attention[l, h, i, i - 1] for i in range(1, n)])) for h in range(H)] for l in range(L)]
    result["next token"] = [[None if decoder else float(np.mean([attention[l, h, i, i + 1] for i in range(n - 1)])) for h in range(H)]
                            for l in range(L)]
    result["first token"] = [[float(np.mean([attention[l, h, i, 0] for i in range(1, n)])) for h in range(H)] for l in range(L)]
    result["end token"] = [[None if decoder else float(np.mean([attention[l, h, i, n - 1] for i in range(n)])) for h in range(H)]
                           for l in range(L)]
    repeated = [i for i in range(n) if ids[i] in ids[:i]]
    result["duplicate token"] = [[float(np.mean([sum(attention[l, h, i, j] for j in range(i) if ids[j] == ids[i]) for i in repeated]))
                                  if repeated else None for h in range(H)] for l in range(L)]
    broad = []
    for l in range(L):
        row = []
        for h in range(H):
            entropies = []
            for i in range(n):
                if seen[l][i] < 2:  # a row that sees one token has no spread to measure
                    continue
                p = attention[l, h, i]
                p = p[p > 0]
                entropies.append(float(-(p * np.log(p)).sum()) / np.log(seen[l][i]))
            row.append(float(np.mean(entropies)))
        broad.append(row)
    result["broad"] = broad
    return result


DECODERS = ["llama", "mistral", "gemma3"]  # causal; sliding windows in every layer; in some


def decoder_references():
    out = {}
    for family in DECODERS:
        directory = ROOT / "tests" / "golden" / "decoders" / family
        ids = json.loads((directory / "expected.json").read_text())["cases"][0]["ids"]
        model = AutoModelForCausalLM.from_pretrained(directory, attn_implementation="eager").eval()
        config = model.config
        with torch.no_grad():
            maps = model(torch.tensor([ids]), output_attentions=True).attentions
        attention = np.stack([a[0].double().numpy() for a in maps])
        types = getattr(config, "layer_types", None) or ["sliding_attention" if getattr(config, "sliding_window", None) else "full_attention"] * len(maps)
        seen = [[min(i + 1, config.sliding_window) if types[l] == "sliding_attention" else i + 1 for i in range(len(ids))]
                for l in range(len(maps))]
        out[family] = {"ids": ids, "scores": roles(attention, ids, seen)}
    path = ROOT / "tests" / "golden" / "decoder_head_roles.json"
    path.write_text(json.dumps(out) + "\n")
    print(f"wrote {path}")


def main():
    decoder_references()
    tok = BertTokenizer.from_pretrained(MODEL)
    model = BertModel.from_pretrained(MODEL, attn_implementation="eager").eval()

    def attention_of(ids):
        with torch.no_grad():
            out = model(torch.tensor([ids]), output_attentions=True)
        return np.stack([a[0].double().numpy() for a in out.attentions])

    texts = []
    for text in TEXTS:
        ids = tok(text)["input_ids"]
        texts.append({"text": text, "ids": ids, "scores": roles(attention_of(ids), ids)})
    period = 50
    tokens = probe(tok.vocab_size, set(tok.all_special_ids), period)
    ids = [tok.cls_token_id] + tokens + tokens + [tok.sep_token_id]
    a = attention_of(ids)
    induction = [[float(np.mean([a[l, h, i, i - period + 1] for i in range(1 + period, 1 + 2 * period)]))
                  for h in range(a.shape[1])] for l in range(a.shape[0])]
    out = {"texts": texts, "probe": {"tokens": tokens, "excluded": sorted(tok.all_special_ids), "period": period,
                                     "induction": induction}}
    path = ROOT / "tests" / "golden" / "minilm_head_roles.json"
    path.write_text(json.dumps(out) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
