#!/usr/bin/env python3
"""The reference for bench_tokenize: the Rust `tokenizers` library on the same whole text
(no truncation), median of many runs after warm-up. A folder with tokenizer.json is read by
Tokenizer.from_file; one with vocab.txt alone by transformers' BertTokenizer (its fast version)."""
import argparse
import json
import os
import statistics
import time

p = argparse.ArgumentParser(description=__doc__)
p.add_argument("--tokenizer", required=True)
p.add_argument("--text-file", required=True)
p.add_argument("--runs", type=int, default=9)
p.add_argument("--warmup", type=int, default=2)
a = p.parse_args()
text = open(a.text_file, encoding="utf-8").read()
json_file = os.path.join(a.tokenizer, "tokenizer.json")
if os.path.exists(json_file):
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(json_file)
    tok.no_truncation()  # a checkpoint may ship its tokenizer.json with truncation on (MiniLM: 128)
    tok.no_padding()
    encode = lambda: tok.encode(text, add_special_tokens=False).ids
else:
    from transformers import BertTokenizer
    tok = BertTokenizer.from_pretrained(a.tokenizer)
    encode = lambda: tok(text, add_special_tokens=False)["input_ids"]
for _ in range(a.warmup):
    ids = encode()
times = []
for _ in range(a.runs):
    start = time.perf_counter()
    ids = encode()
    times.append((time.perf_counter() - start) * 1e3)
ms = statistics.median(times)
print(json.dumps({"bytes": len(text.encode("utf-8")), "tokens": len(ids), "tokenize_ms": ms, "mb_per_s": len(text.encode("utf-8")) / ms / 1e3}))
