#!/usr/bin/env bash
# On the first machine with a GPU: the single-text forward with captures and the corpus
# throughput at float32, float16 and bfloat16, ours against transformers on the same GPU, on
# MiniLM and a random BERT-base-sized model; prints Markdown for bench/RESULTS.md. Where libtorch
# sees no GPU it says so and exits with status 77 (nothing measured). ATTNSCOPE_BENCH_DEVICE=cpu
# runs the same plumbing on the CPU at float32 only, as a dry run.
# On a machine prepared otherwise (tools/gpu_check.sh): ATTNSCOPE_NO_SETUP=1 skips tools/setup.sh,
# ATTNSCOPE_PYTHON names the Python with torch and transformers, ATTNSCOPE_BUILD_DIR the build, and
# ATTNSCOPE_BENCH_MODELS the checkpoint folders (separated by ':').
#   bench/run_gpu.sh [runs] [corpus windows]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-30}
windows=${2:-2000}
device=${ATTNSCOPE_BENCH_DEVICE:-cuda}
build=${ATTNSCOPE_BUILD_DIR:-$root/build}
[ "${ATTNSCOPE_NO_SETUP:-0}" = 1 ] || "$root/tools/setup.sh" >&2
py=${ATTNSCOPE_PYTHON:-$root/.venv/bin/python}
if [ "$device" != cpu ] && ! "$py" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"; then
  echo "bench/run_gpu.sh: libtorch sees no GPU here; nothing measured (ATTNSCOPE_BENCH_DEVICE=cpu runs a dry run on the CPU)" >&2
  exit 77
fi
[ -n "${ATTNSCOPE_BENCH_MODELS:-}" ] || "$py" "$root/tools/make_random_bert.py" >&2
precisions=(float32 float16 bfloat16)
[ "$device" = cpu ] && precisions=(float32)
text=$root/assets/examples/lighthouse.txt
corpus=$build/bench-corpus.txt
: > "$corpus"
# A window of 128 tokens every 600 bytes or so of the examples (run_scale.sh): enough for the windows asked.
copies=$((windows * 700 / $(cat "$root"/assets/examples/*.txt | wc -c) + 1))
for _ in $(seq "$copies"); do cat "$root"/assets/examples/*.txt >> "$corpus"; done

"$py" -c "import torch; print('device:', torch.cuda.get_device_name(0) if torch.cuda.is_available() and '$device' != 'cpu' else 'cpu')"
echo "| model | precision | ours: forward with captures | transformers: forward | ratio | ours: corpus windows/s | transformers: windows/s (forward only) | ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
IFS=: read -ra models <<<"${ATTNSCOPE_BENCH_MODELS:-$root/models/all-MiniLM-L6-v2:$root/models/random-bert-base}"
for dir in "${models[@]}"; do
  model=$(basename "$dir")
  for precision in "${precisions[@]}"; do
    ours=$("$build/bench/bench_forward" --model "$dir" --text-file "$text" --runs "$runs" --device "$device" --precision "$precision")
    ref=$("$py" "$root/bench/reference_forward.py" --model "$dir" --text-file "$text" --runs "$runs" --device "$device" --dtype "$precision" 2>/dev/null)
    ours_corpus=$("$build/bench/bench_corpus" --model "$dir" --input "$corpus" --windows "$windows" --batch 32 --device "$device" --precision "$precision")
    ref_corpus=$("$py" "$root/bench/reference_corpus.py" --model "$dir" --input "$corpus" --windows "$windows" --batch 32 --device "$device" --dtype "$precision" 2>/dev/null)
    "$py" - "$model" "$precision" "$ours" "$ref" "$ours_corpus" "$ref_corpus" <<'PY'
import json, sys
model, precision, ours, ref, oc, rc = sys.argv[1], sys.argv[2], *(json.loads(x) for x in sys.argv[3:])
f, rf = ours["forward_capture_ms"], ref["forward_ms"]
w, rw = oc["windows_per_s"], rc["windows_per_s"]
print(f"| {model} | {precision} | {f:.2f} ms | {rf:.2f} ms | {f / rf:.2f}x | {w:.0f} | {rw:.0f} | {w / rw:.2f}x |")
PY
  done
done
