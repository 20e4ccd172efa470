#!/usr/bin/env bash
# Live typing measured from outside: the real explorer runs in an X server (Xvfb with Mesa's
# software OpenGL), xdotool clicks into its editor and types bursts of keys as a user's keyboard
# would (real X events through GLFW and Dear ImGui), and the explorer's --trace-shown prints the
# wall-clock time of the first frame that shows the analysis of the text as it then stands.
# Latency = that time - the moment just before xdotool sent the burst's last key (so xdotool's
# own start, a few ms, is counted against us). Beside it, the forward with captures and the
# analysis measured alone by bench_forward on the same text and length.
#   bench/run_typing_x11.sh [bursts] [models...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bursts=${1:-15}
shift || true
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(all-MiniLM-L6-v2 random-bert-base)
"$root/tools/setup.sh" >&2
"$root/.venv/bin/python" "$root/tools/make_random_bert.py" >&2
command -v xdotool >/dev/null || { echo "[bench] installing xdotool" >&2; apt-get install -y -q xdotool >&2; }
tmp=$(mktemp -d)
xvfb_pid=""
app_pid=""
cleanup() {
  [ -z "$app_pid" ] || kill "$app_pid" 2>/dev/null || true
  [ -z "$xvfb_pid" ] || kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
long=$tmp/long.txt
for _ in 1 2; do cat "$root/assets/examples/"*.txt; done > "$long"  # more than 512 tokens

Xvfb -displayfd 3 -screen 0 1600x1000x24 3>"$tmp/display" >/dev/null 2>&1 &
xvfb_pid=$!
for _ in $(seq 50); do [ -s "$tmp/display" ] && break; sleep 0.1; done
export DISPLAY=":$(cat "$tmp/display")"

now() { date +%s.%N; }
# Waits until the log holds a "shown" line for a text of $2 bytes; prints its time.
wait_shown() {
  local log=$1 bytes=$2
  for _ in $(seq 600); do
    local t
    t=$(awk -v b="$bytes" '$2 == "shown" && $5 == b { print $3 }' "$log" | tail -1)
    if [ -n "$t" ]; then echo "$t"; return 0; fi
    sleep 0.02
  done
  echo "[bench] no frame showed the analysis of a text of $bytes bytes within 12 s; the explorer's log:" >&2
  tail -${LOG_LINES:-5} "$log" >&2
  echo "timeout" ; return 1
}

echo "| model | tokens | latency median | latency p95 | bursts | forward alone | analysis alone |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for model in "${models[@]}"; do
  for len in ${LENGTHS:-128 512}; do
    log=$tmp/$model-$len.log
    "$root/build/app/attnscope" --settings "$tmp/settings.json" --width 1280 --height 800 --model "$root/models/$model" \
      --file "$long" --max-len "$len" --trace-shown 2>"$log" &
    app_pid=$!
    bytes=$(wc -c < "$long")
    wait_shown "$log" "$bytes" >/dev/null
    xdotool mousemove 100 100 click 1  # into the editor's first line
    sleep 0.5
    latencies=()
    for k in $(seq "$bursts"); do
      xdotool type --delay 80 "wor"
      start=$(now)
      xdotool type --delay 0 "d"
      bytes=$((bytes + 4))
      shown=$(wait_shown "$log" "$bytes")
      latencies+=("$(echo "($shown - $start) * 1000" | bc -l)")
      [ -z "${TRACE:-}" ] || echo "burst $k: last key at $start, shown at $shown" >&2
      sleep 0.8
    done
    [ -z "${TRACE:-}" ] || cat "$log" >&2
    kill "$app_pid" 2>/dev/null || true
    wait "$app_pid" 2>/dev/null || true
    app_pid=""
    alone=$("$root/build/bench/bench_forward" --model "$root/models/$model" --text-file "$long" --max-len "$len" --runs 15 --threads 2)
    "$root/.venv/bin/python" - "$model" "$len" "$alone" "${latencies[@]}" <<'PY'
import json, statistics, sys
model, length, alone = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
lat = sorted(float(x) for x in sys.argv[4:])
p95 = lat[min(len(lat) - 1, max(0, -(-95 * len(lat) // 100) - 1))]
print(f"| {model} | {length} | {statistics.median(lat):.0f} ms | {p95:.0f} ms | {len(lat)} | "
      f"{alone['forward_capture_ms']:.0f} ms | {alone['analysis_ms']:.0f} ms |")
PY
  done
done
