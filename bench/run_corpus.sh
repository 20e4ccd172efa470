#!/usr/bin/env bash
# Corpus throughput (ours with the full analysis vs the reference's forward alone) and our peak
# memory at two corpus sizes; prints Markdown for bench/RESULTS.md. Ours and the reference
# alternate over `rounds` rounds; each throughput is the median over rounds.
#   bench/run_corpus.sh [windows] [batch] [threads] [rounds]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
windows=${1:-400}
batch=${2:-8}
threads=${3:-2}
rounds=${4:-3}
"$root/tools/setup.sh" >&2
py=$root/.venv/bin/python
"$py" "$root/tools/make_random_bert.py" >&2
corpus=$root/build/bench-corpus.txt
: > "$corpus"
for _ in $(seq 400); do cat "$root"/assets/examples/*.txt >> "$corpus"; done  # about 4,000 windows of 128

echo "| model | windows | ours, full analysis | reference, forward only | ratio | rounds (ours/reference) | ours: forward / analysis / accumulators |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for model in all-MiniLM-L6-v2 random-bert-base; do
  dir=$root/models/$model
  n=$windows
  [ "$model" = random-bert-base ] && n=$((windows / 4))
  ours="" ref=""
  for _ in $(seq "$rounds"); do
    ours+=$("$root/build/bench/bench_corpus" --model "$dir" --input "$corpus" --windows "$n" --batch "$batch" --threads "$threads")$'\n'
    ref+=$("$py" "$root/bench/reference_corpus.py" --model "$dir" --input "$corpus" --windows "$n" --batch "$batch" --threads "$threads" 2>/dev/null)$'\n'
  done
  "$py" -c "
import json, statistics, sys
o = [json.loads(x) for x in sys.argv[2].splitlines() if x.strip()]
r = [json.loads(x) for x in sys.argv[3].splitlines() if x.strip()]
ow, rw = statistics.median(x['windows_per_s'] for x in o), statistics.median(x['windows_per_s'] for x in r)
rounds = ', '.join(f\"{a['windows_per_s']:.1f}/{b['windows_per_s']:.1f}\" for a, b in zip(o, r))
phases = ' / '.join(f\"{statistics.median(x[k] for x in o):.2f} s\" for k in ('forward_s', 'analysis_s', 'accumulate_s'))
print(f\"| {sys.argv[1]} | {o[0]['windows']} | {ow:.1f} windows/s | {rw:.1f} windows/s | {ow / rw:.2f}x | {rounds} | {phases} |\")
" "$model" "$ours" "$ref"
done

echo
echo "| corpus size (MiniLM) | peak memory |"
echo "| --- | --- |"
for n in $((windows / 4)) "$windows"; do
  m=$("$root/build/bench/bench_corpus" --model "$root/models/all-MiniLM-L6-v2" --input "$corpus" --windows "$n" --batch "$batch" --threads "$threads")
  "$py" -c "import json, sys; o = json.loads(sys.argv[1]); print(f\"| {o['windows']} windows | {o['peak_rss_mb']:.0f} MB |\")" "$m"
done
