#!/usr/bin/env bash
# Run the forward-pass benchmark for MiniLM and a random BERT-base-sized model, beside the
# reference (transformers) in the same run, and print a Markdown table for bench/RESULTS.md.
# Ours and the reference alternate over `rounds` rounds; each figure is the median over rounds of
# the per-round medians, so a slow spell of a shared machine does not land on one side only.
#   bench/run.sh [runs] [threads] [rounds]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-30}
threads=${2:-2}
rounds=${3:-3}
"$root/tools/setup.sh" >&2
py=$root/.venv/bin/python
"$py" "$root/tools/make_random_bert.py" >&2
text=$root/assets/examples/lighthouse.txt

echo "| model | tokens | ours: analyze | reference: tokenize + forward | ratio | ours: forward with captures | reference: forward | ratio | ours: plain forward | capture cost | analysis | analysis / forward |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for model in all-MiniLM-L6-v2 random-bert-base; do
  dir=$root/models/$model
  ours=() refs=()
  for _ in $(seq "$rounds"); do
    ours+=("$("$root/build/bench/bench_forward" --model "$dir" --text-file "$text" --runs "$runs" --threads "$threads")")
    refs+=("$("$py" "$root/bench/reference_forward.py" --model "$dir" --text-file "$text" --runs "$runs" --threads "$threads" 2>/dev/null)")
  done
  "$py" - "$model" "$(printf '%s\n' "${ours[@]}")" "$(printf '%s\n' "${refs[@]}")" <<'PY'
import json, statistics, sys
def combine(lines):
    rounds = [json.loads(line) for line in lines.splitlines() if line.strip()]
    return {k: statistics.median(r[k] for r in rounds) if isinstance(rounds[0][k], float) else rounds[0][k] for k in rounds[0]}
model, ours, ref = sys.argv[1], combine(sys.argv[2]), combine(sys.argv[3])
a, rf, f, rr, p = ours["analyze_ms"], ref["tokenize_forward_ms"], ours["forward_capture_ms"], ref["forward_ms"], ours["forward_plain_ms"]
an = ours["analysis_ms"]
print(f"| {model} | {ours['tokens']} | {a:.1f} ms | {rf:.1f} ms | {a / rf:.2f}x | {f:.1f} ms | {rr:.1f} ms | {f / rr:.2f}x | {p:.1f} ms | {100 * (f / p - 1):+.1f}% | {an:.1f} ms | {100 * an / f:.1f}% |")
PY
done
