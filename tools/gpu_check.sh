#!/usr/bin/env bash
# Build, test and measure attnscope on a bare GPU machine, in one command and under 10 minutes:
#
#   tools/gpu_check.sh OUT_DIR
#
# The machine needs nothing fetched: a C++ compiler, CMake, ninja (or make), dpkg-deb and a Python
# with torch and transformers (its libtorch is the one built against); the Debian libraries the
# build needs travel in .gpu/, made on the development machine by tools/gpu_prepare.sh and unpacked
# here into a prefix of their own (never into /). Stages, each timed and logged, each going on
# whatever the one before it gave:
#   probe      the GPU, torch, compilers, what the window would need
#   unpack     .gpu/prefix.tar.xz into the prefix, glad2 beside it
#   configure  CMake against the machine's libtorch and the prefix (binaries find the prefix's
#              libraries through their rpath, so nothing else on the machine changes)
#   build      the command line, the window, the suites below and the benchmarks
#   models     random checkpoints of MiniLM's, BERT-base's, SmolLM2's and Gemma 3's shapes (the
#              benchmarks' models: the real weights travel only in parts, with the minilm stage, or
#              not at all); transformers writes them
#   suites     model, analysis, pipeline, compare and corpus suites on ATTNSCOPE_TEST_DEVICE (cuda),
#              every decoder family's golden test among them; GpuParity compares A and C on the GPU
#              with the CPU's on every fixture and model
#   decoders   the decoder-shaped models' forward with captures against transformers' at 128, 512
#              and 2,048 tokens, float32 and bfloat16
#   long       long texts on the decoder-shaped models: each step of a long text and the head roles
#              at 8,192 tokens, `attnscope-cli analyze` of Gemma 3's shape at 32,768
#   corpus     a 20,000-window corpus run of the MiniLM-shaped model through attnscope-cli
#   bench      bench/run_gpu.sh: forward with captures and corpus throughput at float32, float16
#              and bfloat16 against transformers on the same GPU
#   window     the parts of .gpu-window/ (tools/gpu_prepare.sh --window) this call carried, kept
#              in the build folder; once all have come, unpacked into the prefix: Xvfb and Mesa,
#              too large to travel beside the tree in one call
#   minilm     likewise the parts of .gpu-minilm/: all-MiniLM-L6-v2, whose golden tests the suites
#              then run too
#   typing     the explorer's typing benchmark under Xvfb with NVIDIA's GLX (where an Xvfb is
#              found: the window stage's, or the machine's)
# OUT_DIR receives summary.md (each stage, its time and its outcome; rewritten after every
# stage, so a run stopped at its limit still reports), results.md (the tables for
# bench/RESULTS.md) and logs.tar.gz.
#
# Environment: ATTNSCOPE_PYTHON (python3), ATTNSCOPE_TEST_DEVICE (cuda), ATTNSCOPE_BENCH_DEVICE
# (cuda), ATTNSCOPE_BUILD_DIR (build-gpu), ATTNSCOPE_GPU_DEADLINE (seconds for the whole run, 540),
# ATTNSCOPE_CORPUS_WINDOWS (20000), ATTNSCOPE_GLX_VENDOR (nvidia), ATTNSCOPE_GPU_SLOWER (each
# stage's limit multiplied by it, 1), ATTNSCOPE_GPU_STAGES (the stages to run, all),
# ATTNSCOPE_GPU_MODELS (all, or decoders), ATTNSCOPE_DECODER_PRECISIONS ("float32 bfloat16"),
# ATTNSCOPE_DECODER_WINDOWS (2000), ATTNSCOPE_DECODER_LENGTHS ("128 512 2048"), ATTNSCOPE_DECODER_COMMANDS
# (1; 0: the decoders stage without its heads and corpus commands), ATTNSCOPE_LONG_TOKENS (8192),
# ATTNSCOPE_LONGEST_TOKENS (32768), ATTNSCOPE_GPU_SUITES (the suites stage's test programs, the five
# above; GTEST_FILTER narrows them), ATTNSCOPE_GPU_TARGETS (what the build stage builds: all the
# stages need).
# A dry run on a machine without a GPU:
#   ATTNSCOPE_TEST_DEVICE=cpu ATTNSCOPE_BENCH_DEVICE=cpu ATTNSCOPE_PYTHON=.venv/bin/python tools/gpu_check.sh OUT
# (tools/gpu_dry_run.sh runs it so, with the system's development packages hidden).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
self=$root/tools/gpu_check.sh
# Each stage runs as `gpu_check.sh --stage NAME` under timeout(1), with the run's folders passed
# down in the environment.
if [ "${1:-}" = --stage ]; then
  stage_name=$2
else
  [ $# -eq 1 ] || { echo "usage: tools/gpu_check.sh OUT_DIR" >&2; exit 2; }
  mkdir -p "$1" && out=$(cd "$1" && pwd)
  ATTNSCOPE_GPU_WORK=$(mktemp -d /tmp/attnscope-gpu.XXXXXX)
  ATTNSCOPE_GPU_RESULTS=$out/results.md
  export ATTNSCOPE_GPU_WORK ATTNSCOPE_GPU_RESULTS
  : >"$ATTNSCOPE_GPU_RESULTS"
fi
py=${ATTNSCOPE_PYTHON:-python3}
test_device=${ATTNSCOPE_TEST_DEVICE:-cuda}
bench_device=${ATTNSCOPE_BENCH_DEVICE:-cuda}
build=${ATTNSCOPE_BUILD_DIR:-$root/build-gpu}
deadline=${ATTNSCOPE_GPU_DEADLINE:-540}
corpus_windows=${ATTNSCOPE_CORPUS_WINDOWS:-20000}
glx_vendor=${ATTNSCOPE_GLX_VENDOR:-nvidia}
slower=${ATTNSCOPE_GPU_SLOWER:-1}
carried=$root/.gpu
carried_window=$root/.gpu-window
work=$ATTNSCOPE_GPU_WORK
# The unpacked packages and the random models live in the build folder, so that a second call on
# the same machine (ATTNSCOPE_GPU_STAGES) finds them, as CMake's cache does.
prefix=$build/deps
models=$build/models
logs=$work/logs
mkdir -p "$logs" "$models"
libdirs="$prefix/usr/lib/x86_64-linux-gnu:$prefix/lib/x86_64-linux-gnu"
results=$ATTNSCOPE_GPU_RESULTS
rows=()

report() {
  {
    echo "# tools/gpu_check.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), ${SECONDS} s so far"
    echo
    echo "| stage | outcome | seconds |"
    echo "| --- | --- | --- |"
    printf '%s\n' "${rows[@]}"
  } >"$out/summary.md"
  tar -czf "$out/logs.tar.gz" -C "$work" logs 2>/dev/null
}

# stage NAME LIMIT FUNCTION: runs FUNCTION with its output in logs/NAME.log, stopped after LIMIT
# seconds or at the run's deadline, whichever comes first; a row in the summary either way.
stage() {
  local name=$1 limit=$(($2 * slower)) function=$3
  local left=$((deadline - SECONDS))
  [ "$limit" -le "$left" ] || limit=$left
  if [ "$limit" -le 5 ]; then
    rows+=("| $name | not run: the run's deadline (${deadline} s) was reached | 0 |")
    report
    return 124
  fi
  echo "[gpu_check] $name (at ${SECONDS} s, at most ${limit} s)"
  local start=$SECONDS rc
  timeout "$limit" bash "$self" --stage "$function" >"$logs/$name.log" 2>&1
  rc=$?
  local outcome="ok"
  [ $rc -eq 0 ] || outcome="failed (exit $rc$([ $rc -eq 124 ] && echo ", stopped after ${limit} s")); last lines: $(tail -3 "$logs/$name.log" | tr '\n|' '  ' | cut -c1-300)"
  [ $rc -eq 77 ] && outcome="skipped: $(tail -1 "$logs/$name.log" | tr '|' ' ')"
  rows+=("| $name | $outcome | $((SECONDS - start)) |")
  report
  return $rc
}

probe() {
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || echo "nvidia-smi: none"
  "$py" -c "import torch, transformers; c = torch.cuda.is_available(); print('torch', torch.__version__, 'cuda', torch.version.cuda, 'gpu', torch.cuda.get_device_name(0) if c else 'none'); print('transformers', transformers.__version__)"
  c++ --version | head -1
  cmake --version | head -1
  command -v ninja && ninja --version
  echo "cores $(nproc)"
  free -g | head -2
  echo "Xvfb: $(command -v Xvfb || echo none)"
  ldconfig -p | grep -E 'libGLX_nvidia|libGLX_mesa|libLLVM' || echo "no GLX vendor library in ld.so.cache"
  ls /usr/local/nvidia/lib64 2>/dev/null | grep -E '^libGLX_nvidia' || true
}

# untar_xz ARCHIVE DEST: through Python's tarfile, since a bare machine may have no xz.
untar_xz() {
  mkdir -p "$2"
  "$py" -c 'import sys, tarfile
tarfile.open(sys.argv[1], "r:xz").extractall(sys.argv[2], filter="fully_trusted")' "$1" "$2"
}

unpack() {
  [ -f "$carried/prefix.tar.xz" ] || { echo "no $carried/prefix.tar.xz: run tools/gpu_prepare.sh on the development machine first"; return 1; }
  rm -rf "$prefix"
  untar_xz "$carried/prefix.tar.xz" "$prefix" || return 1
  # Links that point at /usr/... or /lib/... point into the prefix instead.
  find "$prefix" -type l -lname '/*' | while read -r link; do ln -sfn "$prefix$(readlink "$link")" "$link"; done
  "$py" -m pip install -q --no-index --no-deps --disable-pip-version-check --target "$prefix/site" "$carried"/wheels/*.whl
  cat >"$prefix/pkg-config" <<EOF
#!/bin/sh
export PKG_CONFIG_LIBDIR=$prefix/usr/lib/x86_64-linux-gnu/pkgconfig:$prefix/usr/share/pkgconfig:$prefix/usr/lib/pkgconfig
export PKG_CONFIG_SYSROOT_DIR=$prefix
LD_LIBRARY_PATH=$libdirs exec $prefix/usr/bin/pkgconf "\$@"
EOF
  chmod +x "$prefix/pkg-config"
  "$prefix/pkg-config" --modversion cairo libutf8proc imgui glfw3 fontconfig libcurl
}

configure() {
  local torch_prefix generator=()
  torch_prefix=$("$py" -c 'import torch; print(torch.utils.cmake_prefix_path)') || return 1
  command -v ninja >/dev/null && generator=(-G Ninja)
  local rpath="-Wl,--disable-new-dtags -Wl,-rpath,$libdirs -Wl,-rpath-link,$libdirs"
  # The prefix's headers come before the machine's own, so that what is compiled against is what
  # is linked; DT_RPATH (not RUNPATH) so that the prefix's libraries find theirs too.
  PYTHONPATH=$prefix/site cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$torch_prefix;$prefix/usr" -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
    -DPKG_CONFIG_EXECUTABLE="$prefix/pkg-config" -DATTNSCOPE_PYTHON="$(command -v "$py")" \
    -DCMAKE_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu;$prefix/lib/x86_64-linux-gnu" \
    "-DCMAKE_CXX_FLAGS=-isystem $prefix/usr/include -isystem $prefix/usr/include/x86_64-linux-gnu" \
    "-DCMAKE_C_FLAGS=-isystem $prefix/usr/include" \
    "-DCMAKE_EXE_LINKER_FLAGS=$rpath" "-DCMAKE_SHARED_LINKER_FLAGS=$rpath" -DOPENSSL_ROOT_DIR="$prefix/usr"
}

suites=(${ATTNSCOPE_GPU_SUITES:-test_model test_analysis test_pipeline test_compare test_corpus})
build_all() {
  # shellcheck disable=SC2086 # a list of names
  cmake --build "$build" -j "$(nproc)" --target ${ATTNSCOPE_GPU_TARGETS:-attnscope-cli attnscope bench_forward bench_corpus ${suites[*]}}
}

# Random checkpoints of the shapes .gpu/shapes.tar.xz carries (tools/make_random_decoder.py), and
# of BERT-base's.
# ATTNSCOPE_GPU_MODELS=decoders: those alone (for the decoders stage on its own).
make_models() {
  untar_xz "$carried/shapes.tar.xz" "$models/shapes" || return 1
  if [ "${ATTNSCOPE_GPU_MODELS:-all}" != decoders ]; then
    "$py" "$root/tools/make_random_bert.py" "$models/minilm-shape" --like "$models/shapes/minilm-shape" &&
      "$py" "$root/tools/make_random_bert.py" "$models/random-bert-base" --vocab-from "$models/shapes/minilm-shape" || return 1
  fi
  local name
  for name in smollm2 gemma3; do
    [ -d "$models/shapes/$name-shape" ] || { echo "no $name shape carried"; continue; }
    "$py" "$root/tools/make_random_decoder.py" random "$models/shapes/$name-shape" "$models/$name-shape" || return 1
  done
}

# The suites in parallel (each spends most of its time starting CUDA and waiting on it), then one
# table of their outcomes. The real models' golden tests fail for want of their weights where they
# did not travel (the minilm stage): counted apart.
run_suites() {
  local pids=() parity="" minilm=() name
  for name in minilm-shape random-bert-base smollm2-shape gemma3-shape; do  # those the models stage made
    [ -f "$models/$name/model.safetensors" ] && parity="$parity:$models/$name"
  done
  if [ -f "$models/all-MiniLM-L6-v2/model.safetensors" ]; then  # the minilm stage's
    minilm=(ATTNSCOPE_TEST_MODEL="$models/all-MiniLM-L6-v2")
    parity="$parity:$models/all-MiniLM-L6-v2"
  fi
  parity=${parity#:}
  for t in "${suites[@]}"; do
    # Line-buffered, so that a program that crashes leaves the name of the test it was in.
    env "${minilm[@]}" ATTNSCOPE_TEST_DEVICE=$test_device ATTNSCOPE_GPU_PARITY_MODELS="$parity" \
      stdbuf -oL -eL "$build/tests/$t" --gtest_output="json:$logs/$t.json" >"$logs/$t.out" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  "$py" "$root/tools/gtest_summary.py" "$logs" "${suites[@]}" | tee -a "$results"
}

run_bench() {
  local list="$models/minilm-shape:$models/random-bert-base"
  echo "## Forward with captures and corpus throughput (bench/run_gpu.sh 20 2000)" >>"$results"
  ATTNSCOPE_NO_SETUP=1 ATTNSCOPE_PYTHON=$py ATTNSCOPE_BUILD_DIR=$build ATTNSCOPE_BENCH_MODELS=$list \
    ATTNSCOPE_BENCH_DEVICE=$bench_device "$root/bench/run_gpu.sh" 20 2000 | tee -a "$results"
}

# The decoders' forward with captures against transformers' eager forward with attentions, on
# random checkpoints of SmolLM2's and Gemma 3's shapes (the make_models stage), at the lengths of
# bench/run_decoders.sh, in float32 and bfloat16.
run_decoder_bench() {
  local text=$work/long.txt name len precision ours ref
  for _ in $(seq 8); do cat "$root"/assets/examples/*.txt; done >"$text"  # more than 2,048 tokens
  echo "## Decoders' forward with captures (random checkpoints of the real shapes, median of 10)" >>"$results"
  # Ours as the explorer runs it (its last layer stopped at its head outputs and the last token;
  # bench_forward --forward-only), and beside it every row through the last layer, as transformers'.
  echo "| model | precision | tokens | ours: forward with captures | transformers: forward | ratio | ours, every row through the last layer | ratio |" >>"$results"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |" >>"$results"
  for name in smollm2 gemma3; do
    [ -f "$models/$name-shape/model.safetensors" ] || { echo "no $name-shape model"; continue; }
    for precision in ${ATTNSCOPE_DECODER_PRECISIONS:-float32 bfloat16}; do
      for len in ${ATTNSCOPE_DECODER_LENGTHS:-128 512 2048}; do
        ours=$("$build/bench/bench_forward" --model "$models/$name-shape" --text-file "$text" --max-len "$len" \
          --runs 10 --warmup 2 --device "$bench_device" --precision "$precision" --forward-only) || return 1
        ref=$("$py" "$root/bench/reference_forward.py" --model "$models/$name-shape" --text-file "$text" --max-len "$len" \
          --runs 10 --warmup 2 --device "$bench_device" --dtype "$precision" 2>/dev/null) || return 1
        "$py" - "$name-shape" "$precision" "$ours" "$ref" <<'PY' | tee -a "$results"
import json, sys
name, precision, ours, ref = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
f, fc, rf = ours["forward_capture_ms"], ours["forward_complete_ms"], ref["forward_ms"]
tokens = f"{ours['tokens']}" if ours["tokens"] == ref["tokens"] else f"{ours['tokens']} (transformers {ref['tokens']})"
print(f"| {name} | {precision} | {tokens} | {f:.2f} ms | {rf:.2f} ms | {f / rf:.2f}x | {fc:.2f} ms | {fc / rf:.2f}x |")
PY
      done
    done
  done
  [ "${ATTNSCOPE_DECODER_COMMANDS:-1}" = 0 ] || decoder_commands
}

# The command line on a decoder on the device: head roles (the induction probe too) and a corpus
# run of ATTNSCOPE_DECODER_WINDOWS (2,000) windows of 128 tokens (at 512, the result file alone
# holds 600 MB of summed maps).
decoder_commands() {
  local cli=$build/app/attnscope-cli model=$models/smollm2-shape start end corpus=$work/decoder-corpus.txt
  local windows=${ATTNSCOPE_DECODER_WINDOWS:-2000}
  [ -f "$model/model.safetensors" ] || return 0
  for _ in $(seq $((windows * 128 / 250 + 10))); do cat "$root"/assets/examples/*.txt; done >"$corpus"
  "$cli" heads --model "$model" --file "$root/assets/examples/lighthouse.txt" --device "$bench_device" --json \
    >"$logs/heads-smollm2.json" || return 1
  start=$(date +%s.%N)
  "$cli" corpus --model "$model" --input "$corpus" --max-len 128 --max-windows "$windows" --batch 32 --device "$bench_device" \
    --out "$work/decoder-corpus.json" || return 1
  end=$(date +%s.%N)
  "$py" - "$start" "$end" "$work/decoder-corpus.json" <<'PY' | tee -a "$results"
import json, sys
start, end, result = float(sys.argv[1]), float(sys.argv[2]), json.load(open(sys.argv[3]))
windows = result["windows"]
print(f"\nattnscope-cli heads and corpus ran on smollm2-shape; corpus, 128 tokens, batch 32: {windows} windows in {end - start:.1f} s "
      f"({windows / (end - start):.1f} windows/s, the process's start and the model's load included)")
PY
}

# Long texts on the decoder-shaped models (issue 32): what each step costs beside the forward
# keeping queries and keys (bench_forward --long-text) and the head roles from the forward's blocks
# (--head-roles), at ATTNSCOPE_LONG_TOKENS (8,192); then `attnscope-cli analyze` of Gemma 3's shape
# at ATTNSCOPE_LONGEST_TOKENS (32,768), its wall time and the GPU memory it took at most (sampled by
# nvidia-smi every 100 ms, the CUDA context included). Each command under a limit of its own, so
# that one slow step leaves the others their rows.
run_long_bench() {
  local short=$work/long-examples.txt longest=$work/long-corpus.txt name n=${ATTNSCOPE_LONG_TOKENS:-8192}
  local m=${ATTNSCOPE_LONGEST_TOKENS:-32768} json
  for _ in $(seq 40); do cat "$root"/assets/examples/*.txt; done >"$short"  # more than 8,192 tokens
  for _ in $(seq 20); do cat "$root"/assets/corpus/*.txt; done >"$longest"  # more than 32,768 tokens
  echo "## Long texts on the device (bench_forward --long-text and --head-roles, one run after one warm-up)" >>"$results"
  for name in smollm2 gemma3; do
    [ -f "$models/$name-shape/model.safetensors" ] || { echo "no $name-shape model"; continue; }
    for what in --long-text --head-roles; do
      # Each step's time goes to a log as it ends: a run stopped by its limit still says which step was slow.
      local steps=$logs/long-$name${what#-}.log
      json=$(timeout 90 "$build/bench/bench_forward" --model "$models/$name-shape" --text-file "$short" --max-len "$n" \
        --runs 1 --warmup 1 --device "$bench_device" --step-times "$what" 2>"$steps") ||
        json="failed or stopped (exit $?); steps that ended: $(grep '^step' "$steps" | paste -sd ';' -)"
      echo "- $name-shape $what: $json" | tee -a "$results"
    done
  done
  [ -f "$models/gemma3-shape/model.safetensors" ] || return 0
  local sampler=() start end
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 >"$logs/long-memory.csv" &
    sampler=($!)
  fi
  start=$(date +%s.%N)
  timeout 120 "$build/app/attnscope-cli" analyze --model "$models/gemma3-shape" --file "$longest" --max-len "$m" \
    --device "$bench_device" --captures none --out "$work/long-analyze.bin" >"$logs/long-analyze.log" 2>&1
  local rc=$?
  end=$(date +%s.%N)
  [ ${#sampler[@]} -eq 0 ] || kill "${sampler[@]}"
  local peak
  peak=$(sort -n "$logs/long-memory.csv" 2>/dev/null | tail -1)
  echo "- gemma3-shape attnscope-cli analyze --max-len $m: exit $rc, $(awk "BEGIN { printf \"%.1f\", $end - $start }") s, GPU memory at most ${peak:-?} MiB" |
    tee -a "$results"
  return $rc
}

run_corpus() {
  local text=$work/corpus.txt
  for _ in $(seq 9000); do cat "$root"/assets/examples/*.txt; done >"$text"
  local start end
  start=$(date +%s.%N)
  "$build/app/attnscope-cli" corpus --model "$models/minilm-shape" --input "$text" --max-windows "$corpus_windows" \
    --batch 64 --device "$bench_device" --out "$work/corpus-result.json" || return 1
  end=$(date +%s.%N)
  "$py" - "$start" "$end" "$work/corpus-result.json" <<'PY' | tee -a "$results"
import json, sys
start, end, result = float(sys.argv[1]), float(sys.argv[2]), json.load(open(sys.argv[3]))
windows = result["windows"]
print("## Corpus run (attnscope-cli corpus, MiniLM-shaped, 128 tokens, batch 64)")
print(f"{windows} windows in {end - start:.1f} s: {windows / (end - start):.0f} windows/s, the process's start and the model's load included")
PY
}

# gather_parts NAME DEST: the parts of .gpu-NAME/ (tools/gpu_prepare.sh --NAME) come one call at
# a time; each is kept in the build folder until all have come, then checked and unpacked into
# DEST, once. Exit 77 (skipped) while some are missing.
gather_parts() {
  local name=$1 dest=$2 kept=$build/parts-$1 carried_parts=$root/.gpu-$1
  mkdir -p "$kept"
  [ -f "$carried_parts/SHA256SUMS" ] && cp "$carried_parts"/SHA256SUMS "$carried_parts/$name".tar.xz.part* "$kept/"
  [ -f "$kept/SHA256SUMS" ] || { echo "no .gpu-$name/SHA256SUMS carried (tools/gpu_prepare.sh --$name): skipped"; return 77; }
  local missing
  missing=$(cd "$kept" && awk '{print $2}' SHA256SUMS | while read -r part; do [ -f "$part" ] || echo "$part"; done)
  [ -z "$missing" ] || { echo "kept $(ls "$kept/$name".tar.xz.part* 2>/dev/null | wc -l) parts; still to come: $missing"; return 77; }
  cmp -s "$kept/SHA256SUMS" "$kept/unpacked" && { echo "unpacked before into $dest"; return 0; }
  (cd "$kept" && sha256sum -c --quiet SHA256SUMS) || return 1
  mkdir -p "$dest"
  cat "$kept/$name".tar.xz.part* | "$py" -c 'import sys, tarfile
tarfile.open(fileobj=sys.stdin.buffer, mode="r|xz").extractall(sys.argv[1], filter="fully_trusted")' "$dest" || return 1
  cp "$kept/SHA256SUMS" "$kept/unpacked"
  echo "unpacked $(wc -l <"$kept/SHA256SUMS") parts into $dest"
}

gather_window() {
  gather_parts window "$prefix" || return
  # Links that point at /usr/... or /lib/... point into the prefix instead.
  find "$prefix" -type l -lname '/*' | while read -r link; do ln -sfn "$prefix$(readlink "$link")" "$link"; done
}

gather_minilm() { gather_parts minilm "$models"; }

run_typing() {
  local server_env=() client_env=() xvfb
  if [ -x "$prefix/usr/bin/Xvfb" ]; then  # carried, with Mesa for its GLX (the window stage)
    xvfb=$prefix/usr/bin/Xvfb
    server_env=(LD_LIBRARY_PATH="$libdirs" LIBGL_DRIVERS_PATH="$prefix/usr/lib/x86_64-linux-gnu/dri")
    client_env=(LIBGL_DRIVERS_PATH="$prefix/usr/lib/x86_64-linux-gnu/dri")
    # Xvfb runs its keyboard compiler and reads the keyboard data at fixed paths.
    [ -e /usr/bin/xkbcomp ] || ln -s "$prefix/usr/bin/xkbcomp" /usr/bin/xkbcomp || return 1
    [ -e /usr/share/X11/xkb ] || { mkdir -p /usr/share/X11 && ln -s "$prefix/usr/share/X11/xkb" /usr/share/X11/xkb; } || return 1
  else
    xvfb=$(command -v Xvfb) || { echo "no Xvfb on this machine and none carried (the window stage): skipped"; return 77; }
  fi
  local text=$work/long.txt
  for _ in 1 2; do cat "$root"/assets/examples/*.txt; done >"$text"
  env "${server_env[@]}" "$xvfb" :77 -screen 0 1600x1000x24 >"$logs/xvfb.log" 2>&1 &
  local server=$!
  sleep 2
  local rc=0 vendor
  for vendor in "$glx_vendor" mesa; do
    rc=0
    echo "## Typing in the explorer (--bench-typing 20, grid view, 1280 x 800, Xvfb, GLX of $vendor)" >>"$results"
    for len in 128 512; do
      env "${client_env[@]}" DISPLAY=:77 __GLX_VENDOR_LIBRARY_NAME=$vendor \
        LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/nvidia/lib "$build/app/attnscope" --settings "$work/settings.json" --width 1280 --height 800 --model "$models/minilm-shape" \
        --file "$text" --max-len "$len" --view grid --device "$bench_device" --bench-typing 20 | tail -1 | tee -a "$results" || rc=1
    done
    # NVIDIA's GLX may refuse a server without its extension: then Mesa's (software) draws.
    [ $rc -ne 0 ] && [ "$vendor" != mesa ] || break
    echo "(GLX of $vendor failed: see typing.log)" >>"$results"
  done
  kill "$server"
  return $rc
}

if [ -n "${stage_name:-}" ]; then
  "$stage_name"
  exit
fi
trap 'report; rm -rf "$work"; echo "[gpu_check] done in ${SECONDS} s: $out/summary.md"' EXIT
# ATTNSCOPE_GPU_STAGES: only these (e.g. "build suites" on a machine a first run left warm).
wanted() { [[ " ${ATTNSCOPE_GPU_STAGES:-probe unpack configure build models window minilm suites decoders long corpus bench typing} " == *" $1 "* ]]; }
run_stage() { wanted "$1" || return 0; stage "$@"; }
run_stage probe 60 probe
run_stage unpack 120 unpack || exit 1
run_stage configure 120 configure || exit 1
run_stage build 420 build_all || exit 1
run_stage models 90 make_models
run_stage window 60 gather_window
run_stage minilm 60 gather_minilm
run_stage suites 240 run_suites
run_stage decoders 240 run_decoder_bench
run_stage long 600 run_long_bench
run_stage corpus 120 run_corpus
run_stage bench 240 run_bench
run_stage typing 90 run_typing
