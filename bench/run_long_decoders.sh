#!/usr/bin/env bash
# Long texts on the real decoders (issue 32): `attnscope-cli analyze` (forward keeping queries and
# keys, the whole analysis, every head's pairs and statistics; its summary, no result file, so no
# head roles: they are written, not summed up) on the default corpus repeated 20 times, cut at
# each length. Wall time and peak resident memory read from outside (/usr/bin/time). The command
# runs on a pseudo-terminal (`script`) so that it prints its summary, as a user at a terminal sees
# it, rather than the JSON of the whole result. Prints Markdown.
#   bench/run_long_decoders.sh [model:tokens ...]   (default: gemma-3-270m:32768; models in models/)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/setup.sh" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for _ in $(seq 20); do cat "$root"/assets/corpus/*.txt; done > "$tmp/long.txt"  # more than 32,768 tokens
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(gemma-3-270m:32768)

echo "| model | tokens | time | peak resident memory |"
echo "| --- | --- | --- | --- |"
for run in "${runs[@]}"; do
  model=${run%%:*} n=${run##*:}
  command=("$root/build/app/attnscope-cli" analyze --model "$root/models/$model" --file "$tmp/long.txt" --max-len "$n")
  if script -qefc "/usr/bin/time -f '%e %M' -o '$tmp/time' ${command[*]@Q}" "$tmp/log" > /dev/null; then
    read -r s kb < "$tmp/time"
    echo "| $model | $n | $s s | $((kb / 1024)) MB |"
  else
    echo "| $model | $n | failed: $(tr -d '\r' < "$tmp/log" | tail -1) | |"
  fi
done
