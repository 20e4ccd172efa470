#!/usr/bin/env python3
"""What transformers' eager forward with output_attentions costs on a long text (issue 32's
comparison): for each length asked, one forward's time and the process's peak resident memory,
each length in a process of its own; a length whose maps would not fit in --memory-share of this
machine's memory is not run but said so, with the memory its maps alone would take. Then its
largest length here, found by trying: from the estimate of what fits, down by a tenth each time a
run fails (each child runs under an address-space limit of that share, so a length too long fails
in it with an allocation error instead of calling the kernel's out-of-memory killer).

Token ids are random (seed 0; a forward's cost does not depend on which tokens it reads), so any
checkpoint folder transformers loads will do, with or without a tokenizer.

  reference_long_forward.py --model DIR [--lengths 2048 8192] [--threads 2] [--memory-share 0.8]
Prints one JSON object a line: {"tokens", "seconds", "peak_mb"} or {"tokens", "fits": false, ...}.
"""
import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time


def forward_once(model_dir, n, threads):
    """The child: one eager forward keeping every map, timed; prints its JSON line."""
    import torch
    from transformers import AutoModel

    torch.set_num_threads(threads)
    model = AutoModel.from_pretrained(model_dir, attn_implementation="eager").eval()
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, model.config.vocab_size, (1, n), generator=generator)
    with torch.inference_mode():
        model(input_ids=ids[:, :16], output_attentions=True)  # warm: first-call set-up not timed
        start = time.perf_counter()
        out = model(input_ids=ids, output_attentions=True)
        seconds = time.perf_counter() - start
    maps = sum(a.numel() for a in out.attentions) * 4
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"tokens": n, "seconds": round(seconds, 2), "peak_mb": round(peak_mb), "maps_mb": maps >> 20}))


def shape(model_dir):
    with open(os.path.join(model_dir, "config.json")) as f:
        config = json.load(f)
    config = config.get("text_config", config)
    return config["num_hidden_layers"], config["num_attention_heads"], config.get("max_position_embeddings", 1 << 20)


def budget_bytes(share):
    with open("/proc/meminfo") as f:
        total_kb = next(int(line.split()[1]) for line in f if line.startswith("MemTotal"))
    return int(total_kb * 1024 * share)


def estimate_bytes(layers, heads, n):
    # Every layer's maps kept, plus about three layers' worth of scores and softmax in flight.
    return (layers + 3) * heads * n * n * 4


def run_child(args, n, budget):
    # The address space of a process with torch loaded is about 3 GB more than it holds (libraries
    # mapped, not read): the limit allows for it.
    space = budget + (4 << 30)

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (space, space))

    child = subprocess.run([sys.executable, __file__, "--model", args.model, "--threads", str(args.threads),
                            "--one", str(n)], capture_output=True, text=True, preexec_fn=limit)
    lines = [line for line in child.stdout.splitlines() if line.startswith("{")]
    if child.returncode == 0 and lines:
        return json.loads(lines[-1])
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True)
    p.add_argument("--lengths", type=int, nargs="*", default=[2048, 8192])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--memory-share", type=float, default=0.8)
    p.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        forward_once(args.model, args.one, args.threads)
        return
    layers, heads, positions = shape(args.model)
    budget = budget_bytes(args.memory_share)
    for n in args.lengths:
        if estimate_bytes(layers, heads, n) > budget:
            print(json.dumps({"tokens": n, "fits": False, "maps_gb": round(layers * heads * n * n * 4 / 1e9, 1)}))
            continue
        print(json.dumps(run_child(args, n, budget) or {"tokens": n, "fits": False}), flush=True)
    n = min(positions, int(math.sqrt(budget / ((layers + 3) * heads * 4)))) // 128 * 128
    for _ in range(5):
        result = run_child(args, n, budget)
        if result:
            print(json.dumps(dict(result, largest=True)))
            return
        n = int(n * 0.9) // 128 * 128
    print(json.dumps({"largest": None, "tried_down_to": n}))


if __name__ == "__main__":
    main()
