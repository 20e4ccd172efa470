#!/usr/bin/env bash
# The explorer on a long text (issue 32): a ModernBERT-base-sized random checkpoint (22 layers of
# 12 heads, 8,192 positions) on 8,192 tokens of the default corpus, under Xvfb with Mesa's software
# OpenGL when there is no display. Peak resident memory read from outside (/usr/bin/time) for the
# whole session: the forward, the analysis, the overview and what each view shows (the Pairs view
# also with pairs from the norm-based maps, a settings file's choice); frame times once
# the view is drawn whole (--bench-frames); then the same text's result file (analyze --out) shown
# without the model. Prints a Markdown table.
#   bench/run_long_explorer.sh [tokens] [frames]   (default: 8192 30)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tokens=${1:-8192}
frames=${2:-30}
"$root/tools/setup.sh" >&2
"$root/.venv/bin/python" "$root/tools/make_random_encoders.py" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for _ in 1 2 3 4; do cat "$root"/assets/corpus/*.txt; done > "$tmp/long.txt"  # more than 8,192 tokens

run() {  # what: "frames" (prints median and 95th percentile) or "visit"; then the explorer's own arguments
  local what=$1
  shift
  local cmd=("$root/build/app/attnscope" --settings "$tmp/settings.json" --width 1600 --height 1000 --timeout 1800 "$@")
  [ -n "${DISPLAY:-}" ] || cmd=(xvfb-run -a -s "-screen 0 1920x1200x24" "${cmd[@]}")
  rm -f "$tmp/settings.json"
  [ -z "${pairs_from:-}" ] ||
    echo "{\"format\": \"attnscope.settings\", \"version\": 1, \"pairs_from\": \"$pairs_from\"}" > "$tmp/settings.json"
  if [ "$what" = frames ]; then cmd+=(--bench-frames "$frames"); else cmd+=(--screenshot "$tmp/shot.png"); fi
  /usr/bin/time -f "%e %M" -o "$tmp/time" "${cmd[@]}" > "$tmp/out" 2> "$tmp/err" || { echo "| failed: $(tail -1 "$tmp/err") |"; return; }
  "$root/.venv/bin/python" - "$tmp/out" "$(cat "$tmp/time")" "$what" <<'PY'
import json, sys
seconds, kb = sys.argv[2].split()
frames = "| |"
if sys.argv[3] == "frames":
    r = json.loads(open(sys.argv[1]).read())
    frames = "| %.1f | %.1f |" % (r["median_ms"], r["p95_ms"])
print("%s %.0f s | %.0f MB |" % (frames, float(seconds), int(kb) / 1024))
PY
}

echo "| what | frame median ms | frame 95th percentile ms | whole session | peak resident memory |"
echo "| --- | --- | --- | --- | --- |"
text=(--model "$root/models/random-modernbert-base" --file "$tmp/long.txt" --max-len "$tokens")
echo -n "| Head view, whole map on screen "; run frames "${text[@]}" --view head --layer 3 --head 2
echo -n "| Head view zoomed to single cells (300x), tiles "; run frames "${text[@]}" --view head --layer 3 --head 2 --zoom 300
echo -n "| every view in turn (keys 2 to 7, then the overview) "; run visit "${text[@]}" --view grid --keys 2345671
# Pairs from a lens: each head's map made whole again, the shown head's mask made from it.
echo -n "| Pairs view, pairs from the norm-based maps "; pairs_from=norm run visit "${text[@]}" --view pairs --layer 3 --head 2
# The same text's result file (analyze --out), shown without the model: opened to the Head view.
"$root/build/app/attnscope-cli" analyze "${text[@]}" --out "$tmp/long.safetensors" > /dev/null
echo -n "| its result file shown without the model (--result), Head view "; run visit --result "$tmp/long.safetensors" --view head --layer 3 --head 2
