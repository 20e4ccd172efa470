#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang (AddressSanitizer + UBSan, the core instrumented
# too) into build-fuzz/, then runs each for a bounded time from its committed seed corpus in
# fuzz/corpus/<target>. A crash fails the script and leaves the input in <build>/crashes/.
#   tools/fuzz.sh [seconds per target, default 60] [build folder]
# Given a build folder, its targets are used as they are: it must have been configured with
# -DATTNSCOPE_FUZZ=ON and built (tools/test.sh does so for its sanitizer pass).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
build=${2:-}
if [ -z "$build" ]; then
  build=$root/build-fuzz
  CC=clang CXX=clang++ ATTNSCOPE_BUILD_DIR=$build "$root/tools/setup.sh" -DATTNSCOPE_FUZZ=ON -DATTNSCOPE_BUILD_TESTS=OFF \
    -DATTNSCOPE_BUILD_BENCH=OFF -DATTNSCOPE_BUILD_GUI=OFF -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
fi
[ -x "$build/fuzz/fuzz_tokenizer" ] || { echo "[fuzz] $build has no fuzz targets (configure it with -DATTNSCOPE_FUZZ=ON)" >&2; exit 1; }
mkdir -p "$build/crashes"
# One target for the given time; its stats on success, the end of its log on a crash.
fuzz_one() {
  local target=$1 corpus=$build/corpus/$1
  mkdir -p "$corpus"
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -rss_limit_mb=6144 -timeout=30 -print_final_stats=1 \
    -artifact_prefix="$build/crashes/$target-" "$corpus" "$root/fuzz/corpus/$target" 2>"$build/fuzz-$target.log" \
    || { tail -40 "$build/fuzz-$target.log" >&2; echo "[fuzz] $target found a crash: $build/crashes/" >&2; return 1; }
  grep -E "stat::number_of_executed_units|stat::new_units_added" "$build/fuzz-$target.log" | sed "s/^/[fuzz] $target /"
}
# Each fuzzer is one process on one core: as many run at once as there are cores.
targets=(tokenizer tokenizer_json safetensors gguf config result_json corpus_json)
jobs=$(nproc)
for ((first = 0; first < ${#targets[@]}; first += jobs)); do
  batch=("${targets[@]:first:jobs}")
  echo "[fuzz] ${batch[*]} for ${seconds}s"
  pids=()
  for target in "${batch[@]}"; do
    fuzz_one "$target" &
    pids+=($!)
  done
  failed=0
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  [ "$failed" = 0 ] || exit 1
done
echo "[fuzz] no crash"
