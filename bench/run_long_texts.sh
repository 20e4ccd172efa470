#!/usr/bin/env bash
# Long texts (issue 32): `attnscope-cli stats` (forward, the whole analysis, every head's pairs and
# statistics) on a ModernBERT-base-sized random checkpoint (22 layers of 12 heads, 8,192 positions)
# at each length, keeping queries and keys instead of maps (what a text past --maps-up-to keeps),
# and, where every map and similarity fits in this machine's memory, keeping the maps as before.
# Wall time and peak resident memory read from outside (/usr/bin/time). Then, per length, what
# each step of a long text costs beside its forward (bench_forward --long-text: medians of 3 runs,
# 1 past 2,048 tokens; peak memory of that whole process, the plain forward's included). Prints Markdown.
#   bench/run_long_texts.sh [lengths...]   (default: 2048 4096 8192)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/setup.sh" >&2
"$root/.venv/bin/python" "$root/tools/make_random_encoders.py" >&2
model=$root/models/random-modernbert-base
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for _ in 1 2 3 4; do cat "$root"/assets/corpus/*.txt; done > "$tmp/long.txt"  # more than 8,192 tokens
memory_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)

measure() {  # prints "seconds peak_MB", or "- -" when the run failed
  if /usr/bin/time -f "%e %M" -o "$tmp/time" "$root/build/app/attnscope-cli" "$@" > /dev/null 2> "$tmp/err"; then
    awk '{printf "%.1f %.0f\n", $1, $2 / 1024}' "$tmp/time"
  else
    echo "- -"
  fi
}

echo "| tokens | kept | time | peak resident memory |"
echo "| --- | --- | --- | --- |"
lengths=("$@")
[ ${#lengths[@]} -gt 0 ] || lengths=(2048 4096 8192)
for n in "${lengths[@]}"; do
  run=(stats --model "$model" --file "$tmp/long.txt" --max-len "$n")
  read -r s mb < <(measure "${run[@]}" --maps-up-to 1)
  echo "| $n | queries and keys | $s s | $mb MB |"
  maps_kb=$((22 * 12 * n * n * 8 / 1024))  # every map and similarity, float32
  if [ "$maps_kb" -lt $((memory_kb * 3 / 4)) ]; then
    read -r s mb < <(measure "${run[@]}" --maps-up-to "$n")
    echo "| $n | every map | $s s | $mb MB |"
  else
    echo "| $n | every map | does not fit: $((maps_kb / 1024 / 1024)) GB of maps and similarities | |"
  fi
done

echo
echo "| tokens | forward keeping queries and keys | plain forward (no captures) | overview (thumbnails made again) | forward pooling the overview, coloured | whole analysis | one head's whole map | one head's map in the Head view (tiles' top level) | rollout after the second layer | rollout after the last layer | peak resident memory |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for n in "${lengths[@]}"; do
  runs=3
  [ "$n" -le 2048 ] || runs=1
  /usr/bin/time -f "%M" -o "$tmp/time" "$root/build/bench/bench_forward" --model "$model" --text-file "$tmp/long.txt" \
    --max-len "$n" --long-text --runs "$runs" --warmup 1 > "$tmp/long.json"
  "$root/.venv/bin/python" - "$tmp/long.json" "$(cat "$tmp/time")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = r["forward_queries_keys_ms"]  # the forward a long text runs: the ratios' unit
cell = lambda k: "%.1f s (%.2fx)" % (r[k] / 1000, r[k] / f)
print("| %d | %.1f s | %s | %s | %s | %s | %.0f ms | %.0f ms | %s | %s | %.0f MB |" % (r["tokens"], f / 1000,
      cell("forward_plain_ms"), cell("thumbnails_ms"), cell("forward_pooled_overview_ms"), cell("analysis_ms"),
      r["head_map_ms"], r["head_view_map_ms"], cell("rollout_second_layer_ms"), cell("rollout_last_layer_ms"),
      int(sys.argv[2]) / 1024))
PY
done
