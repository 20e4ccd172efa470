#!/usr/bin/env bash
# Tokenizing one long text whole (the explorer does it when a text is opened or pasted, and on every
# edit with a tokenizer other than BERT's; a pasted article or book chapter is tens to hundreds of
# kilobytes): ours (bench_tokenize)
# beside the Rust `tokenizers` library (bench/reference_tokenize.py), for MiniLM's WordPiece and
# every kind of tokenizer.json the golden tests train (BPE, byte-level BPE, Unigram, WordPiece),
# same text, alternating over `rounds` rounds; medians. Single-threaded both.
#   bench/run_tokenize.sh [copies of the example texts] [runs] [rounds]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
copies=${1:-250}
runs=${2:-9}
rounds=${3:-2}
"$root/tools/setup.sh" >&2
py=$root/.venv/bin/python
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
text=$tmp/text.txt
for _ in $(seq "$copies"); do cat "$root/assets/examples/"*.txt; done > "$text"

echo "| tokenizer | bytes | tokens | ours | tokenizers (Rust) | ratio | ours: MB/s |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for dir in "$root/models/all-MiniLM-L6-v2" "$root"/tests/golden/tokenizers/*/; do
  [ -f "$dir/tokenizer.json" ] || [ -f "$dir/vocab.txt" ] || continue
  ours=() refs=()
  for _ in $(seq "$rounds"); do
    ours+=("$(RAYON_NUM_THREADS=1 "$root/build/bench/bench_tokenize" --tokenizer "$dir" --text-file "$text" --runs "$runs")")
    refs+=("$(RAYON_NUM_THREADS=1 "$py" "$root/bench/reference_tokenize.py" --tokenizer "$dir" --text-file "$text" --runs "$runs" 2>/dev/null)")
  done
  "$py" - "$(basename "$dir")" "$(printf '%s\n' "${ours[@]}")" "$(printf '%s\n' "${refs[@]}")" <<'PY'
import json, statistics, sys
name = sys.argv[1]
ours = [json.loads(l) for l in sys.argv[2].splitlines() if l.strip()]
refs = [json.loads(l) for l in sys.argv[3].splitlines() if l.strip()]
o, r = statistics.median(x["tokenize_ms"] for x in ours), statistics.median(x["tokenize_ms"] for x in refs)
print(f"| {name} | {ours[0]['bytes']:,} | {ours[0]['tokens']:,} (reference {refs[0]['tokens']:,}) | {o:.1f} ms | {r:.1f} ms | {o / r:.2f}x | {ours[0]['bytes'] / o / 1e3:.0f} |")
PY
done
