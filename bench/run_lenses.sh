#!/usr/bin/env bash
# What the lenses of issue 14 add to the forward (target: at most 20% at 128 tokens): the forward
# with captures, the same forward also keeping each head's value vectors through W_O (norms and
# per-token Gram matrices), and every lens map of the text (each head's and each layer's norm-based
# map, the rollout of every layer); MiniLM and a random BERT-base-sized model, medians of
# bench_forward's interleaved runs; and the first forward with the lenses, which also makes the
# model's W_O^T W_O once (one run, not a median). Memory is kept for reuse when freed, as in the
# explorer (the lenses are a view of one text there; otherwise each large tensor of the forward is
# fresh pages from the kernel, which costs the lenses' captures about 1.5 ms on MiniLM).
# Prints a Markdown table for bench/RESULTS.md.
#   bench/run_lenses.sh [runs] [max_len]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-30}
len=${2:-128}
"$root/tools/setup.sh" >&2
py=$root/.venv/bin/python
"$py" "$root/tools/make_random_bert.py" >&2
text=$(mktemp)
trap 'rm -f "$text"' EXIT
for _ in 1 2; do cat "$root/assets/examples/"*.txt; done > "$text"

echo "| model | tokens | forward with captures | ... and the lenses' captures | lens maps | added | first forward with the lenses |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for model in all-MiniLM-L6-v2 random-bert-base; do
  line=$("$root/build/bench/bench_forward" --model "$root/models/$model" --text-file "$text" --max-len "$len" --runs "$runs" --threads 2 --reuse-freed-memory)
  "$py" - "$model" "$line" <<'PY'
import json, sys
model, r = sys.argv[1], json.loads(sys.argv[2])
f, fl, m = r["forward_capture_ms"], r["forward_lenses_ms"], r["lens_maps_ms"]
print(f"| {model} | {r['tokens']} | {f:.1f} ms | {fl:.1f} ms | {m:.1f} ms | {100 * (fl + m - f) / f:+.1f}% | {r['first_forward_lenses_ms']:.1f} ms |")
PY
done
