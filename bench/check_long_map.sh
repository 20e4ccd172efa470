#!/usr/bin/env bash
# Issue 32's check of a long text's maps: on a ModernBERT-base-sized random checkpoint (22 layers
# of 12 heads, 8,192 positions) and a text of N tokens (default 8,192) made of the default corpus,
# a head chosen at random (layer and head printed; SEED fixes them) made again by attnscope from
# the queries and keys it kept, and the same head's map from transformers' eager attention:
# their largest difference, at most 1e-5. Exit status 0 when within.
#   bench/check_long_map.sh [N]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/setup.sh" >&2
"$root/.venv/bin/python" "$root/tools/make_random_encoders.py" >&2
model=$root/models/random-modernbert-base
n=${1:-8192}
RANDOM=${SEED:-$$}
layer=$((RANDOM % 22)) head=$((RANDOM % 12))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for _ in 1 2 3 4; do cat "$root"/assets/corpus/*.txt; done > "$tmp/long.txt"  # more than 8,192 tokens
echo "layer $layer, head $head, $n tokens" >&2
"$root/build/bench/bench_forward" --model "$model" --text-file "$tmp/long.txt" --max-len "$n" \
  --dump-map "$layer" "$head" "$tmp/map.f32"
"$root/.venv/bin/python" "$root/bench/check_long_map.py" --model "$model" --layer "$layer" --head "$head" \
  --map "$tmp/map.f32"
