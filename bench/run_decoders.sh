#!/usr/bin/env bash
# The two real decoders tools/setup.sh fetches, opened from their GGUF files: our forward with
# captures (bench_forward, the file as it is) beside transformers' eager forward with attentions
# (bench/reference_forward.py, on the same weights saved once as a folder by
# bench/gguf_to_folder.py), same text, length and threads, alternating over `rounds` rounds; and
# the time each takes to open the GGUF file (ours: tokenizer and model, dequantised; transformers:
# the same, measured once when the folder is made). Ours is the forward the explorer and the
# command line run, its last layer stopped at its head outputs and finished for the last token
# alone (bench_forward --forward-only); beside it every row through the whole last layer, as
# transformers' forward runs it. Ours runs as the explorer and corpus runs run it, freed memory
# kept for reuse (its captures, [L, H, n, n] in one block, are past glibc's largest heap block and
# would be fresh pages from the kernel each run, where transformers' maps, a tensor per layer,
# come from its heap once warm), and beside it as a one-off command does.
#   bench/run_decoders.sh [runs] [rounds] [lengths...]     (defaults: 5 3 128 512 2048)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-5}
rounds=${2:-3}
shift $(($# > 2 ? 2 : $#))
lengths=("$@")
[ ${#lengths[@]} -gt 0 ] || lengths=(128 512 2048)
"$root/tools/setup.sh" >&2
py=$root/.venv/bin/python
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
text=$tmp/long.txt
for _ in $(seq 8); do cat "$root/assets/examples/"*.txt; done >"$text"  # more than 2,048 tokens

declare -A files=([smollm2]=models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf
  [gemma3]=models/gemma-3-270m/gemma-3-270m-q4_k_m.gguf)
echo "| model | tokens | ours: forward with captures | transformers: forward | ratio | ours, fresh memory each run | ratio | ours, every row through the last layer | ratio | ours: open the GGUF | transformers: open the GGUF |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for name in smollm2 gemma3; do
  gguf=$root/${files[$name]}
  folder=$root/models/$name-from-gguf
  if [ ! -f "$folder/model.safetensors" ] || [ ! -f "$folder/load.json" ]; then
    "$py" "$root/bench/gguf_to_folder.py" "$gguf" "$folder" 2>/dev/null | tail -1 >"$tmp/load.json"
    mv "$tmp/load.json" "$folder/load.json"
  fi
  for len in "${lengths[@]}"; do
    ours=() fresh=() refs=()
    for _ in $(seq "$rounds"); do
      run_ours=("$root/build/bench/bench_forward" --model "$gguf" --text-file "$text" --max-len "$len" --runs "$runs" --warmup 1 --threads 2 --forward-only)
      ours+=("$("${run_ours[@]}" --reuse-freed-memory)")
      fresh+=("$("${run_ours[@]}")")
      refs+=("$("$py" "$root/bench/reference_forward.py" --model "$folder" --text-file "$text" --max-len "$len" --runs "$runs" --warmup 1 --threads 2 2>/dev/null)")
    done
    "$py" - "$name" "$(printf '%s\n' "${ours[@]}")" "$(printf '%s\n' "${fresh[@]}")" "$(printf '%s\n' "${refs[@]}")" "$folder/load.json" <<'PY'
import json, statistics, sys
def combine(lines):
    rounds = [json.loads(line) for line in lines.splitlines() if line.strip()]
    return {k: statistics.median(r[k] for r in rounds) if isinstance(rounds[0][k], float) else rounds[0][k] for k in rounds[0]}
name, ours, fresh, ref = sys.argv[1], combine(sys.argv[2]), combine(sys.argv[3]), combine(sys.argv[4])
load = json.load(open(sys.argv[5]))
f, ff, rf = ours["forward_capture_ms"], fresh["forward_capture_ms"], ref["forward_ms"]
fc = ours["forward_complete_ms"]
tokens = f"{ours['tokens']}" if ours["tokens"] == ref["tokens"] else f"{ours['tokens']} (transformers {ref['tokens']})"
print(f"| {name} | {tokens} | {f:.0f} ms | {rf:.0f} ms | {f / rf:.2f}x | {ff:.0f} ms | {ff / rf:.2f}x "
      f"| {fc:.0f} ms | {fc / rf:.2f}x | {ours['load_ms'] / 1000:.1f} s | {load['load_s']:.1f} s |")
PY
  done
done
