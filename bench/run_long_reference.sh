#!/usr/bin/env bash
# Issue 32's comparison: what transformers' eager forward keeping every map (output_attentions)
# needs for a long text (bench/reference_long_forward.py): its time and peak resident memory at
# the lengths attnscope is measured at (bench/run_long_texts.sh), or the memory its maps alone
# would take where they cannot fit here, and its largest length here with its time there. On the
# ModernBERT-base-sized random checkpoint and the two real decoders (their GGUF files saved as
# folders by bench/gguf_to_folder.py, as bench/run_decoders.sh does). Prints Markdown.
#   bench/run_long_reference.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/setup.sh" >&2
py=$root/.venv/bin/python
"$py" "$root/tools/make_random_encoders.py" >&2
declare -A gguf=([smollm2]=models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf
  [gemma3]=models/gemma-3-270m/gemma-3-270m-q4_k_m.gguf)
for name in smollm2 gemma3; do
  [ -f "$root/models/$name-from-gguf/model.safetensors" ] ||
    "$py" "$root/bench/gguf_to_folder.py" "$root/${gguf[$name]}" "$root/models/$name-from-gguf" >/dev/null 2>&1
done

echo "| model | tokens | transformers, eager, every map kept |"
echo "| --- | --- | --- |"
run() {  # model label lengths...
  local folder=$1 label=$2
  shift 2
  "$py" "$root/bench/reference_long_forward.py" --model "$root/models/$folder" --lengths "$@" 2>/dev/null |
    "$py" -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    if r.get("largest", False) is None:
        print("| %s | largest here | none down to %d tokens |" % (sys.argv[1], r["tried_down_to"]))
    elif "seconds" in r:
        what = "%.1f s, %d MB peak (maps %d MB)" % (r["seconds"], r["peak_mb"], r["maps_mb"])
        print("| %s | %s | %s |" % (sys.argv[1], ("%d (largest here)" % r["tokens"]) if r.get("largest") else r["tokens"], what))
    else:
        print("| %s | %d | does not fit%s |" % (sys.argv[1], r["tokens"],
              (": its maps alone %.1f GB" % r["maps_gb"]) if "maps_gb" in r else " (the run failed)"))
' "$label"
}
run random-modernbert-base "ModernBERT-base-sized (random)" 2048 8192
run smollm2-from-gguf "SmolLM2-135M" 8192
run gemma3-from-gguf "Gemma 3 270M" 8192 32768
