#!/usr/bin/env bash
# What comparing costs beyond the two analyses it compares (issue 12: at most +10%), for MiniLM
# and a random BERT-base-sized model at 128 and 512 tokens: one model on two texts (the second
# has one word more), and the model against a copy with noise in its weights (head matching on).
# Prints a Markdown table for bench/RESULTS.md.
#   bench/run_compare.sh [runs]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-10}
"$root/tools/setup.sh" >&2
py=$root/.venv/bin/python
"$py" "$root/tools/make_random_bert.py" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
text=$tmp/long.txt
for _ in 1 2; do cat "$root/assets/examples/"*.txt; done > "$text"  # more than 512 tokens

echo "| model | tokens | compared | two analyses | comparison | comparison / analyses |"
echo "| --- | --- | --- | --- | --- | --- |"
for model in all-MiniLM-L6-v2 random-bert-base; do
  dir=$root/models/$model
  "$py" "$root/tools/perturb_checkpoint.py" "$dir" "$tmp/$model-noisy" --noise 0.05 >&2
  for len in 128 512; do
    for b in "" "$tmp/$model-noisy"; do
      line=$("$root/build/bench/bench_compare" --model "$dir" ${b:+--model-b "$b"} --text-file "$text" --max-len "$len" --runs "$runs" --threads 2)
      "$py" - "$model" "$line" <<'PY'
import json, sys
model, r = sys.argv[1], json.loads(sys.argv[2])
what = "two texts" if r["mode"] == "two texts" else "two models (noise 0.05), heads matched"
print(f"| {model} | {r['tokens']} | {what} | {r['two_analyses_ms']:.1f} ms | {r['compare_ms']:.1f} ms | {100 * r['overhead']:.1f}% |")
PY
    done
  done
done
