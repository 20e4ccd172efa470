#!/usr/bin/env bash
# The paper-sized corpus run (20,000 windows of 128 tokens) on MiniLM: in one piece, then as 4
# shards run one after the other and merged; the merge's time and peak memory, and the merge's
# peak memory at 4 and at 64 shards (a small run cut 64 ways: a shard file is as large whatever
# its windows, so this shows whether merge memory grows with the shard count). Prints Markdown.
#   bench/run_scale.sh [windows]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
windows=${1:-20000}
"$root/tools/setup.sh" >&2
cli=$root/build/app/attnscope-cli
model=$root/models/all-MiniLM-L6-v2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
corpus=$tmp/corpus.txt
# The examples make a window of 128 tokens every 600 bytes or so; 700 leaves a margin, and the
# run's own count is checked below (2,200 copies, this script's first form, made 4,959 windows).
bytes=$(cat "$root"/assets/examples/*.txt | wc -c)
for _ in $(seq $((windows * 700 / bytes + 1))); do cat "$root"/assets/examples/*.txt >> "$corpus"; done

# Runs a command; prints "seconds peak_MB".
measure() {
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" > /dev/null 2>> "$tmp/log"
  awk '{printf "%.1f %.0f\n", $1, $2 / 1024}' "$tmp/time"
}
mkdir -p "$tmp/s4" "$tmp/s64" "$tmp/small4"
run=(corpus --model "$model" --input "$corpus" --max-windows "$windows")
small=(corpus --model "$model" --input "$corpus" --max-windows 640)
read -r whole_s whole_mb < <(measure "$cli" "${run[@]}" --out "$tmp/whole.json")
ran=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['windows'])" "$tmp/whole.json")
if [ "$ran" != "$windows" ]; then
  echo "the input made $ran windows, not $windows: make the corpus larger" >&2
  exit 1
fi
shards_s=0
for k in 0 1 2 3; do
  read -r s _ < <(measure "$cli" "${run[@]}" --shard "$k/4" --out "$tmp/s4/shard-$k.json")
  shards_s=$(echo "$shards_s + $s" | bc)
done
read -r merge4_s merge4_mb < <(measure "$cli" merge "$tmp/merged4.json" "$tmp/s4")
python3 "$root/tools/same_corpus_result.py" "$tmp/whole.json" "$tmp/merged4.json" > /dev/null
for k in $(seq 0 63); do "$cli" "${small[@]}" --shard "$k/64" --out "$tmp/s64/shard-$k.json" > /dev/null 2>&1; done
for k in 0 1 2 3; do "$cli" "${small[@]}" --shard "$k/4" --out "$tmp/small4/shard-$k.json" > /dev/null 2>&1; done
read -r small4_s small4_mb < <(measure "$cli" merge "$tmp/small4.json" "$tmp/small4")
read -r small64_s small64_mb < <(measure "$cli" merge "$tmp/small64.json" "$tmp/s64")

echo "| what | windows | time | peak memory |"
echo "| --- | --- | --- | --- |"
echo "| one piece | $windows | ${whole_s} s | ${whole_mb} MB |"
echo "| 4 shards, one after the other (sum of their times) | $windows | ${shards_s} s | |"
echo "| merge of those 4 shards (equal to the one piece: counts identical, sums within 1e-6) | $windows | ${merge4_s} s | ${merge4_mb} MB |"
echo "| merge of 4 shards of a 640-window run | 640 | ${small4_s} s | ${small4_mb} MB |"
echo "| merge of 64 shards of the same run | 640 | ${small64_s} s | ${small64_mb} MB |"
