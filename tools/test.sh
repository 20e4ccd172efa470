#!/usr/bin/env bash
# Set up, build, and run every test: the GoogleTest suites (ctest); the same suites built with
# AddressSanitizer and UndefinedBehaviorSanitizer (skip with ATTNSCOPE_SKIP_SANITIZERS=1), in a
# build that finds no CUDA toolkit, as on most users' machines, which must still build and run; and
# the libFuzzer targets for a bounded time (ATTNSCOPE_FUZZ_SECONDS, 30 per target).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

"$root/tools/setup.sh"
ctest --test-dir "$root/build" --output-on-failure -j "$(nproc)"

# The sanitizer build is also configured as on most users' machines, without a CUDA toolkit (torch
# found without its CMake config, cmake/Libtorch.cmake): one build shows both that this
# configuration builds and runs and that the suites are clean under the sanitizers. Without the
# sanitizers, the command line alone is built that way.
no_toolkit=(-DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON)
sanitizer_env=(ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
if [ "${ATTNSCOPE_SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "[test] the same suites under AddressSanitizer + UBSan, in a build that finds no CUDA toolkit"
  no_toolkit_build=$root/build-sanitize
  # -O1 with line tables only (as AddressSanitizer recommends): half the compile time of -O2 -g,
  # and the tests' time is spent in libtorch, which is not rebuilt.
  ATTNSCOPE_BUILD_DIR="$no_toolkit_build" "$root/tools/setup.sh" "${no_toolkit[@]}" -DATTNSCOPE_SANITIZE=ON -DATTNSCOPE_BUILD_BENCH=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
  grep -q "no CUDA toolkit found" "$root/.cache/cmake-configure.log"
  # Run once, in the main pass: the layout sweep (32 screenshots of the same drawing code at four
  # window sizes), the Slurm cluster test (the same command-line code, waiting on its jobs) and the
  # interrupted corpus run (its resumption is checked in process by CorpusRun tests under the
  # sanitizers too; here it would only wait longer on a slower process).
  env "${sanitizer_env[@]}" ctest --test-dir "$no_toolkit_build" --output-on-failure -j "$(nproc)" \
    -E 'Gui\.NothingIsCutAtProjectorSizes|Slurm\.|Cli\.CorpusInterruptedByCtrlCResumes'
else
  echo "[test] a build that finds no CUDA toolkit"
  no_toolkit_build=$root/build-no-cuda-toolkit
  ATTNSCOPE_BUILD_DIR="$no_toolkit_build" ATTNSCOPE_BUILD_TARGETS=attnscope-cli "$root/tools/setup.sh" \
    "${no_toolkit[@]}" -DATTNSCOPE_BUILD_TESTS=OFF -DATTNSCOPE_BUILD_BENCH=OFF -DATTNSCOPE_BUILD_GUI=OFF
  grep -q "no CUDA toolkit found" "$root/.cache/cmake-configure.log"
fi
echo "[test] the command line of the build without a CUDA toolkit, on --device auto"
env "${sanitizer_env[@]}" "$no_toolkit_build/app/attnscope-cli" analyze --model "$root/models/all-MiniLM-L6-v2" \
  --file "$root/assets/examples/classroom.txt" --device auto --out "$no_toolkit_build/classroom.json"
echo "[test] fuzzing the readers (libFuzzer, ${ATTNSCOPE_FUZZ_SECONDS:-30}s per target)"
"$root/tools/fuzz.sh" "${ATTNSCOPE_FUZZ_SECONDS:-30}"
echo "[test] all passed"
