#!/usr/bin/env python3
"""The reference for bench_forward: Hugging Face transformers on the same text, with
output_attentions (eager attention), same thread count. Median of many runs after warm-up.
The model is whatever architecture the folder holds (AutoModel); the tokenizer is BertTokenizer
for a vocab.txt folder, else the folder's tokenizer.json through the tokenizers library.

  tokenize+forward  tokenizing (truncation to --max-len) + forward with attentions
  forward           forward with attentions, ids already tokenised
  tokenize          tokenizing alone
"""
import os
import argparse
import json
import statistics
import time

import torch
from transformers import AutoModel, BertTokenizer, PreTrainedTokenizerFast


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
    p.add_argument("--device", default="cpu")
    p.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    text = open(a.text_file, encoding="utf-8").read()
    if os.path.exists(os.path.join(a.model, "vocab.txt")):
        tok = BertTokenizer.from_pretrained(a.model)
    else:
        tok = PreTrainedTokenizerFast(tokenizer_file=os.path.join(a.model, "tokenizer.json"))
    model = AutoModel.from_pretrained(a.model, attn_implementation="eager", dtype=getattr(torch, a.dtype)).to(a.device).eval()
    def encode():  # ids and mask only: not every architecture takes token types
        e = tok(text, truncation=True, max_length=a.max_len, return_tensors="pt")
        return {"input_ids": e["input_ids"].to(a.device), "attention_mask": e["attention_mask"].to(a.device)}

    enc = encode()

    def sync():  # a GPU's work is asynchronous: time it to its end
        if a.device.startswith("cuda"):
            torch.cuda.synchronize()

    def full():
        with torch.inference_mode():
            model(**encode(), output_attentions=True)
        sync()

    def forward():
        with torch.inference_mode():
            model(**enc, output_attentions=True)
        sync()

    def tokenize():
        tok(text, truncation=True, max_length=a.max_len, return_tensors="pt")

    full_ms, forward_ms, tokenize_ms = interleaved_medians(a.warmup, a.runs, [full, forward, tokenize])
    print(json.dumps({"tokens": enc["input_ids"].shape[1], "threads": a.threads, "runs": a.runs,
                      "tokenize_forward_ms": full_ms, "forward_ms": forward_ms, "tokenize_ms": tokenize_ms}))


if __name__ == "__main__":
    main()
