#!/usr/bin/env bash
# Set up, build, and run every test: the GoogleTest suites (ctest); the same suites built with
# AddressSanitizer and UndefinedBehaviorSanitizer (skip with ATTNSCOPE_SKIP_SANITIZERS=1); and a
# build that finds no CUDA toolkit, as on most users' machines, which must still build and run; and
# the libFuzzer targets for a bounded time (ATTNSCOPE_FUZZ_SECONDS, 30 per target).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

"$root/tools/setup.sh"
ctest --test-dir "$root/build" --output-on-failure -j "$(nproc)"

if [ "${ATTNSCOPE_SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "[test] the same suites under AddressSanitizer + UBSan"
  # -O1 with line tables only (as AddressSanitizer recommends): half the compile time of -O2 -g,
  # and the tests' time is spent in libtorch, which is not rebuilt.
  ATTNSCOPE_BUILD_DIR="$root/build-sanitize" "$root/tools/setup.sh" -DATTNSCOPE_SANITIZE=ON -DATTNSCOPE_BUILD_BENCH=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
  # The layout sweep (32 screenshots of the same drawing code at four window sizes) and the Slurm
  # cluster test (the same command-line code, waiting on its jobs) run once, in the main pass:
  # under the sanitizers they would only repeat what other tests exercise.
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$root/build-sanitize" --output-on-failure -j "$(nproc)" -E 'Gui\.NothingIsCutAtProjectorSizes|Slurm\.'
fi

echo "[test] a build that finds no CUDA toolkit"
ATTNSCOPE_BUILD_DIR="$root/build-no-cuda-toolkit" ATTNSCOPE_BUILD_TARGETS=attnscope-cli "$root/tools/setup.sh" \
  -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DATTNSCOPE_BUILD_TESTS=OFF -DATTNSCOPE_BUILD_BENCH=OFF -DATTNSCOPE_BUILD_GUI=OFF
grep -q "no CUDA toolkit found" "$root/.cache/cmake-configure.log"
"$root/build-no-cuda-toolkit/app/attnscope-cli" analyze --model "$root/models/all-MiniLM-L6-v2" \
  --file "$root/assets/examples/classroom.txt" --device auto --out "$root/build-no-cuda-toolkit/classroom.json"
echo "[test] fuzzing the readers (libFuzzer, ${ATTNSCOPE_FUZZ_SECONDS:-30}s per target)"
"$root/tools/fuzz.sh" "${ATTNSCOPE_FUZZ_SECONDS:-30}"
echo "[test] all passed"
