#!/usr/bin/env bash
# Live typing: the real window (under Xvfb with Mesa's software OpenGL when there is no display)
# types bursts of keys into its editor (`attnscope --bench-typing`) and measures, for each burst,
# the time from its last key to the end of the first frame that shows the analysis of the text
# as it then stands. Beside it, the model's own forward with captures and the analysis, measured
# alone by bench_forward on the same text and length (reusing freed memory, as the explorer does),
# in the same run. Targets (issue 10): at 128 tokens at most forward + analysis + 2 frames; at 512
# tokens at most 2x the forward. That forward is the model's whole; the explorer's own (in slices,
# its last layer stopped at its head outputs, which no view reads) is shown beside it.
# The typing run and the forward alone alternate over `rounds` rounds (this VM's speed drifts
# 15-20% from minute to minute); each figure is the median over rounds.
#   bench/run_typing.sh [bursts] [rounds] [view]
# MODELS (names under models/) picks the models: by default MiniLM, a BERT-base-sized random model
# and SmolLM2 (a decoder, from the folder holding its GGUF file). LENGTHS picks the lengths (128 512).
# TYPE_AT picks where the keys go: start (the default: every edit changes every token after it) or
# end (writing on, as a decoder's user does: its runs continue from the last one). At the end the
# text is first cut to 2 tokens a burst fewer than the length, so that what is typed is within it,
# and the forward alone is measured on that cut text: the shortest the typed text is, the strictest
# target. FIRST_PAUSE (seconds, default 0) waits that long after the text as opened is shown
# before the first burst, as a user reads a text before typing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bursts=${1:-20}
rounds=${2:-3}
view=${3:-grid}
"$root/tools/setup.sh" >&2
"$root/.venv/bin/python" "$root/tools/make_random_bert.py" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
long=$tmp/long.txt
for _ in 1 2; do cat "$root/assets/examples/"*.txt; done > "$long"  # more than 512 tokens

gui() {
  local cmd=("$root/build/app/attnscope" --settings "$tmp/settings.json" --width 1280 --height 800 "$@")
  if [ -n "${DISPLAY:-}" ]; then "${cmd[@]}"; else xvfb-run -a -s "-screen 0 1600x1000x24" "${cmd[@]}"; fi
}

echo "| model | tokens | typed at | view | latency median | latency p95 | forward alone | the explorer's forward alone | analysis alone | in the window: forward, analysis, thumbnails | whole frame median | target | met |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
type_at=${TYPE_AT:-start}
for model in ${MODELS:-all-MiniLM-L6-v2 random-bert-base SmolLM2-135M-Instruct}; do
  for len in ${LENGTHS:-128 512}; do
    typings=() alones=()
    text=$long
    if [ "$type_at" = end ]; then  # the long text cut at its (len - 2 x bursts)th token's last byte
      text=$tmp/cut.txt
      "$root/build/app/attnscope-cli" tokenize --model "$root/models/$model" --file "$long" \
        --max-len $((len - 2 * bursts)) --json |
        "$root/.venv/bin/python" -c 'import json, sys; e = max(t["end"] for t in json.load(sys.stdin)["tokens"]); sys.stdout.buffer.write(open(sys.argv[1], "rb").read()[:e])' "$long" > "$text"
    fi
    for _ in $(seq "$rounds"); do
      typings+=("$(gui --model "$root/models/$model" --file "$text" --max-len "$len" --view "$view" --bench-typing "$bursts" --typing-at "$type_at" --typing-first-pause "${FIRST_PAUSE:-0}" 2>/dev/null | tail -1)")
      alones+=("$("$root/build/bench/bench_forward" --model "$root/models/$model" --text-file "$text" --max-len "$len" --runs 15 --threads 2 --reuse-freed-memory)")
    done
    "$root/.venv/bin/python" - "$model" "$len" "$view" "$(printf '%s\n' "${typings[@]}")" "$(printf '%s\n' "${alones[@]}")" <<'PY'
import json, statistics, sys
model, length, view = sys.argv[1], int(sys.argv[2]), sys.argv[3]
typings = [json.loads(l) for l in sys.argv[4].splitlines() if l.strip()]
alones = [json.loads(l) for l in sys.argv[5].splitlines() if l.strip()]
med = lambda rows, key: statistics.median(r[key] for r in rows)
# A frame in the target is a frame of the whole window (as the one showing an analysis is), not a
# key's frame that redrew the editor's side alone.
latency, p95, frame = med(typings, "latency_median_ms"), med(typings, "latency_p95_ms"), med(typings, "whole_frame_median_ms")
forward, analysis = med(alones, "forward_capture_ms"), med(alones, "analysis_ms")
own = med(alones, "forward_explorer_ms")  # sliced, its last layer stopped at the head outputs
inside_f, inside_a = med(typings, "forward_median_ms"), med(typings, "analysis_median_ms")
inside_t = statistics.median(r.get("thumbnails_median_ms", 0) for r in typings)
target = forward + analysis + 2 * frame if length <= 128 else 2 * forward
what = "forward + analysis + 2 frames" if length <= 128 else "2 x forward"
met = "yes" if latency <= target else "no"
# Typed at the end, the tokens grow: from those the forward alone ran to those at the last burst.
tokens = typings[0]["tokens"] if typings[0].get("typed_at", "start") == "start" else f"{alones[0]['tokens']} to {typings[0]['tokens']}"
print(f"| {model} | {tokens} | {typings[0].get('typed_at', 'start')} | {view} | {latency:.0f} ms | {p95:.0f} ms | {forward:.0f} ms | {own:.0f} ms | {analysis:.0f} ms | "
      f"{inside_f:.0f} ms, {inside_a:.0f} ms, {inside_t:.0f} ms | {frame:.0f} ms | {what} = {target:.0f} ms | {met} |")
PY
  done
done
