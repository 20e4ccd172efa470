#!/usr/bin/env python3
"""The reference for bench_corpus: transformers' BertModel forward alone (its default attention,
no outputs kept) over the same paper-faithful windows, same batch size and threads."""
import argparse
import json
import time

import torch
from transformers import BertModel, BertTokenizer


def windows(tok, text, n):
    ids = tok(text, add_special_tokens=False)["input_ids"]
    for start in range(0, len(ids), n - 2):
        yield [tok.cls_token_id] + ids[start:start + n - 2] + [tok.sep_token_id]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--model", required=True)
    p.add_argument("--input", required=True)
    p.add_argument("--window", type=int, default=128)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--windows", type=int, default=400)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--device", default="cpu")
    p.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    tok = BertTokenizer.from_pretrained(a.model)
    model = BertModel.from_pretrained(a.model, dtype=getattr(torch, a.dtype)).to(a.device).eval()
    text = open(a.input, encoding="utf-8").read()
    todo = list(windows(tok, text, a.window))[: a.windows]

    def run(items):
        for start in range(0, len(items), a.batch):
            batch = items[start:start + a.batch]
            width = max(map(len, batch))
            ids = torch.tensor([w + [tok.pad_token_id] * (width - len(w)) for w in batch])
            mask = torch.tensor([[1] * len(w) + [0] * (width - len(w)) for w in batch])
            with torch.inference_mode():
                model(input_ids=ids.to(a.device), attention_mask=mask.to(a.device))
        if a.device.startswith("cuda"):
            torch.cuda.synchronize()

    run(todo[: a.batch])  # warm-up
    start = time.perf_counter()
    run(todo)
    seconds = time.perf_counter() - start
    print(json.dumps({"windows": len(todo), "seconds": seconds, "windows_per_s": len(todo) / seconds, "batch": a.batch,
                      "threads": a.threads}))


if __name__ == "__main__":
    main()
