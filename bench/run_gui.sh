#!/usr/bin/env bash
# Frame times of the explorer, under Xvfb with Mesa's software OpenGL (llvmpipe) when there is no
# display: the BERT-base-sized model's overview (144 heads and 12 layer sums as 128 x 128
# thumbnails) and a 512-token head view (a 512 x 512 heatmap). Prints a Markdown table.
#   bench/run_gui.sh [frames]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
frames=${1:-300}
"$root/tools/setup.sh" >&2
"$root/.venv/bin/python" "$root/tools/make_random_bert.py" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
long=$tmp/long.txt
for _ in 1 2 3 4; do cat "$root/assets/examples/"*.txt; done > "$long"

measure() {
  local cmd=("$root/build/app/attnscope" --settings "$tmp/settings.json" --width 1600 --height 1000 --bench-frames "$frames" "$@")
  if [ -n "${DISPLAY:-}" ]; then "${cmd[@]}"; else xvfb-run -a -s "-screen 0 1920x1200x24" "${cmd[@]}"; fi
}

echo "| what | view | tokens | frames | median ms | 95th percentile ms | max ms |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
cat > "$tmp/row.py" <<'PY'
import json, sys
r = json.loads(sys.stdin.read())
print("| %s | %s | %d | %d | %.1f | %.1f | %.1f |" % (sys.argv[1], r["view"], r["tokens"], r["frames"], r["median_ms"], r["p95_ms"], r["max_ms"]))
PY
row() {
  local what=$1
  shift
  measure "$@" | "$root/.venv/bin/python" "$tmp/row.py" "$what"
}
row "156 thumbnails (BERT-base size)" --model "$root/models/random-bert-base" --file "$long" --view grid
row "512 x 512 similarity map" --model "$root/models/random-bert-base" --file "$long" --max-len 512 --view head --matrix similarity
row "512 x 512 attention map" --model "$root/models/random-bert-base" --file "$long" --max-len 512 --view head --matrix attention
row "Fig. 9 table and text" --model "$root/models/all-MiniLM-L6-v2" --file "$long" --view pairs
