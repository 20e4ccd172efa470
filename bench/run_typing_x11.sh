#!/usr/bin/env bash
# Live typing measured from outside: the real explorer runs in an X server (Xvfb with Mesa's
# software OpenGL), bench/typing_x11.py clicks into its editor and types bursts of keys through
# the XTEST extension as a user's keyboard would (real X events through GLFW and Dear ImGui), and
# the explorer's --trace-shown prints the wall-clock time of the first frame that shows the
# analysis of the text as it then stands. Latency = that time - the moment just before the burst's
# last key was sent. Beside it, the forward with captures and the analysis measured alone by
# bench_forward on the same text and length, reusing freed memory as the explorer does. The two
# alternate over ROUNDS rounds (default 3); latencies are pooled over every burst of every round,
# the alone figures are medians over rounds.
#   [ROUNDS=3] [LENGTHS="128 512"] bench/run_typing_x11.sh [bursts] [models...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bursts=${1:-15}
rounds=${ROUNDS:-3}  # typing and the forward alone alternate, as in run_typing.sh: the VM's speed drifts
shift || true
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(all-MiniLM-L6-v2 random-bert-base)
"$root/tools/setup.sh" >&2
"$root/.venv/bin/python" "$root/tools/make_random_bert.py" >&2
ldconfig -p | grep -q libXtst.so.6 || { echo "[bench] installing libxtst6 (XTEST)" >&2; apt-get install -y -q libxtst6 >&2; }
tmp=$(mktemp -d)
xvfb_pid=""
cleanup() {
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

echo "| model | tokens | latency median | latency p95 | bursts | forward alone | the explorer's forward alone | analysis alone | in the window: forward, analysis, thumbnails | waited to start, run's end to shown |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for model in "${models[@]}"; do
  for len in ${LENGTHS:-128 512}; do
    typings=() alones=()
    for _ in $(seq "$rounds"); do
      typings+=("$("$root/.venv/bin/python" "$root/bench/typing_x11.py" "$bursts" -- "$root/build/app/attnscope" --settings "$tmp/settings.json" \
        --width 1280 --height 800 --model "$root/models/$model" --file "$long" --max-len "$len" --view grid)")
      alones+=("$("$root/build/bench/bench_forward" --model "$root/models/$model" --text-file "$long" --max-len "$len" --runs 15 --threads 2 --reuse-freed-memory)")
    done
    "$root/.venv/bin/python" - "$model" "$len" "$(printf '%s\n' "${alones[@]}")" "$(printf '%s\n' "${typings[@]}")" <<'PY'
import json, statistics, sys
model, length = sys.argv[1], int(sys.argv[2])
alones = [json.loads(l) for l in sys.argv[3].splitlines() if l.strip()]
typed = [json.loads(l) for l in sys.argv[4].splitlines() if l.strip()]
pooled = lambda key: [x for t in typed for x in t[key]]  # every burst of every round
lat = sorted(pooled("latencies_ms"))
inside = ", ".join(f"{statistics.median(pooled(k)):.0f} ms" for k in ("forward_ms", "analysis_ms", "thumbnails_ms"))
around = ", ".join(f"{statistics.median(pooled(k)):.0f} ms" for k in ("waited_ms", "drawn_ms"))
forward, own, analysis = (statistics.median(a[k] for a in alones) for k in ("forward_capture_ms", "forward_explorer_ms", "analysis_ms"))
p95 = lat[min(len(lat) - 1, max(0, -(-95 * len(lat) // 100) - 1))]
print(f"| {model} | {length} | {statistics.median(lat):.0f} ms | {p95:.0f} ms | {len(lat)} | "
      f"{forward:.0f} ms | {own:.0f} ms | {analysis:.0f} ms | {inside} | {around} |")
PY
  done
done
