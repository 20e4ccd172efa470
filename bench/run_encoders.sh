#!/usr/bin/env bash
# Every architecture attnscope reads, at base size with random weights (tools/make_random_encoders.py;
# BERT itself is bench/run.sh): our forward with captures beside transformers' forward with
# attentions (eager), same text, length and threads, alternating over `rounds` rounds; and the
# tokenizer of each kind (WordPiece, byte-level BPE, SentencePiece Unigram) on the same text,
# ours beside the Rust tokenizers library, next to the forward it precedes.
#   bench/run_encoders.sh [runs] [max-len] [rounds]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-15}
len=${2:-512}
rounds=${3:-3}
"$root/tools/setup.sh" >&2
py=$root/.venv/bin/python
"$py" "$root/tools/make_random_encoders.py" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
text=$tmp/long.txt
for _ in 1 2; do cat "$root/assets/examples/"*.txt; done > "$text"  # more than 512 tokens

echo "| architecture | tokenizer | tokens | ours: forward with captures | transformers: forward | ratio | ours: tokenize | tokenizers: tokenize | tokenize / forward |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for arch in roberta xlm-roberta electra albert modernbert; do
  dir=$root/models/random-$arch-base
  ours=() refs=()
  for _ in $(seq "$rounds"); do
    ours+=("$("$root/build/bench/bench_forward" --model "$dir" --text-file "$text" --max-len "$len" --runs "$runs" --threads 2)")
    refs+=("$("$py" "$root/bench/reference_forward.py" --model "$dir" --text-file "$text" --max-len "$len" --runs "$runs" --threads 2 2>/dev/null)")
  done
  kind=$("$py" -c "import json,sys; print(json.load(open(sys.argv[1]))['model']['type'])" "$dir/tokenizer.json")
  "$py" - "$arch" "$kind" "$(printf '%s\n' "${ours[@]}")" "$(printf '%s\n' "${refs[@]}")" <<'PY'
import json, statistics, sys
def combine(lines):
    rounds = [json.loads(line) for line in lines.splitlines() if line.strip()]
    return {k: statistics.median(r[k] for r in rounds) if isinstance(rounds[0][k], float) else rounds[0][k] for k in rounds[0]}
arch, kind, ours, ref = sys.argv[1], sys.argv[2], combine(sys.argv[3]), combine(sys.argv[4])
f, rf, t, rt = ours["forward_capture_ms"], ref["forward_ms"], ours["tokenize_ms"], ref["tokenize_ms"]
print(f"| {arch} | {kind} | {ours['tokens']} | {f:.0f} ms | {rf:.0f} ms | {f / rf:.2f}x | {t:.2f} ms | {rt:.2f} ms | {100 * t / f:.2f}% |")
PY
done
