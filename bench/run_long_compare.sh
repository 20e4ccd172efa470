#!/usr/bin/env bash
# Comparing two long texts' runs (issue 32): a ModernBERT-base-sized random checkpoint against a
# copy with noise of 0.05 standard deviations in every weight matrix (tools/perturb_checkpoint.py:
# the same tokens, so every measure of docs/compare.md), both keeping queries and keys instead of
# maps (bench_compare --long-text): the comparison makes each layer's maps and S again a block of
# rows at a time. Pairs of S (their shared pairs counted from those blocks), and pairs from
# attention with each run's masks kept up to 0 MiB (every head's made again from its map on both
# sides, as the explorer did before 88b22f3) and 128 MiB (the explorer's default). Medians of
# `runs` runs; the comparison's time beside the two runs' forward and analysis. Prints Markdown.
#   bench/run_long_compare.sh [runs] [lengths...]   (default: 3 runs, 2048 tokens)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-3}
shift || true
lengths=("$@")
[ ${#lengths[@]} -gt 0 ] || lengths=(2048)
"$root/tools/setup.sh" >&2
py=$root/.venv/bin/python
"$py" "$root/tools/make_random_encoders.py" >&2
model=$root/models/random-modernbert-base
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for _ in 1 2 3 4; do cat "$root"/assets/corpus/*.txt; done > "$tmp/long.txt"  # more than 8,192 tokens
"$py" "$root/tools/perturb_checkpoint.py" "$model" "$tmp/noisy" --noise 0.05 >&2

echo "| tokens | pairs from | masks kept | two runs and analyses | comparison | comparison / runs |"
echo "| --- | --- | --- | --- | --- | --- |"
for len in "${lengths[@]}"; do
  for config in "similarity 0" "attention 0" "attention 128"; do
    read -r from mib <<< "$config"
    line=$("$root/build/bench/bench_compare" --model "$model" --model-b "$tmp/noisy" --text-file "$tmp/long.txt" \
      --max-len "$len" --runs "$runs" --warmup 0 --threads 2 --long-text --pairs-from "$from" --pair-mask-mib "$mib")
    "$py" - "$line" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
print(f"| {r['tokens']} | {r['pairs_from']} | {r['pair_mask_mib']:.0f} MiB | {r['two_analyses_ms'] / 1000:.1f} s | "
      f"{r['compare_ms'] / 1000:.1f} s | {r['overhead']:.2f}x |")
PY
  done
done
