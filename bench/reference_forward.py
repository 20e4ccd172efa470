#!/usr/bin/env python3
"""The reference for bench_forward: Hugging Face transformers' BertModel on the same text, with
output_attentions (eager attention), same thread count. Median of many runs after warm-up.

  tokenize+forward  BertTokenizer (truncation to --max-len) + forward with attentions
  forward           forward with attentions, ids already tokenised
"""
import argparse
import json
import statistics
import time

import torch
from transformers import BertModel, BertTokenizer


def interleaved_medians(warmup, runs, variants):
    """Median ms of each variant, run round-robin so a slow spell hits them all alike."""
    for _ in range(warmup):
        for work in variants:
            work()
    times = [[] for _ in variants]
    for _ in range(runs):
        for k, work in enumerate(variants):
            start = time.perf_counter()
            work()
            times[k].append((time.perf_counter() - start) * 1e3)
    return [statistics.median(t) for t in times]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--model", required=True)
    p.add_argument("--text-file", required=True)
    p.add_argument("--max-len", type=int, default=128)
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    text = open(a.text_file, encoding="utf-8").read()
    tok = BertTokenizer.from_pretrained(a.model)
    model = BertModel.from_pretrained(a.model, attn_implementation="eager").eval()
    enc = tok(text, truncation=True, max_length=a.max_len, return_tensors="pt")

    def full():
        with torch.inference_mode():
            model(**tok(text, truncation=True, max_length=a.max_len, return_tensors="pt"), output_attentions=True)

    def forward():
        with torch.inference_mode():
            model(**enc, output_attentions=True)

    full_ms, forward_ms = interleaved_medians(a.warmup, a.runs, [full, forward])
    print(json.dumps({"tokens": enc["input_ids"].shape[1], "threads": a.threads, "runs": a.runs,
                      "tokenize_forward_ms": full_ms, "forward_ms": forward_ms}))


if __name__ == "__main__":
    main()
