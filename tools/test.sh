#!/usr/bin/env bash
# Set up, build, and run every test: the C++'s formatting (tools/format.sh --check); the GoogleTest
# suites (ctest); the same suites built by clang with AddressSanitizer and UndefinedBehaviorSanitizer
# (skip with ATTNSCOPE_SKIP_SANITIZERS=1), in a build that finds no CUDA toolkit, as on most users'
# machines, which must still build and run; and from that build the libFuzzer targets for a bounded
# time (ATTNSCOPE_FUZZ_SECONDS, 30 per target).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Each step says when it starts, in seconds since this script did: CI has a time limit, and this
# shows where the time goes.
say() { echo "[test] $* (at ${SECONDS} s)"; }

"$root/tools/setup.sh"
say "the C++ formatted as .clang-format says (tools/format.sh --check)"
"$root/tools/format.sh" --check
say "the suites (ctest)"
ctest --test-dir "$root/build" --output-on-failure -j "$(nproc)"

# The sanitizer pass is one clang build with AddressSanitizer, UBSan and libFuzzer's coverage on
# everything: the same build runs the suites and the fuzz targets of the readers. It is also
# configured as on most users' machines, without a CUDA toolkit (torch found without its CMake
# config, cmake/Libtorch.cmake), so it shows that this configuration builds and runs too. Without
# the sanitizers, the command line alone is built that way, and the fuzz targets on their own.
no_toolkit=(-DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON)
sanitizer_env=(ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
fuzz_seconds=${ATTNSCOPE_FUZZ_SECONDS:-30}
if [ "${ATTNSCOPE_SKIP_SANITIZERS:-0}" != 1 ]; then
  say "the same suites under AddressSanitizer + UBSan (clang), in a build that finds no CUDA toolkit"
  no_toolkit_build=$root/build-sanitize
  # A folder left by an older version of this script was built by GCC: CMake cannot switch compilers in place.
  if [ -f "$no_toolkit_build/CMakeCache.txt" ] && ! grep -q "^CMAKE_CXX_COMPILER:.*clang" "$no_toolkit_build/CMakeCache.txt"; then
    rm -rf "$no_toolkit_build"
  fi
  # -O1 with line tables only (as AddressSanitizer recommends): the tests' time is spent in
  # libtorch, which is not rebuilt. The core file by file (cmake/UnityBuild.cmake says why).
  CC=clang CXX=clang++ ATTNSCOPE_BUILD_DIR="$no_toolkit_build" "$root/tools/setup.sh" "${no_toolkit[@]}" -DATTNSCOPE_FUZZ=ON \
    -DATTNSCOPE_UNITY_CORE=OFF -DATTNSCOPE_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
  grep -q "no CUDA toolkit found" "$root/.cache/cmake-configure.log"
  # The tests tools/not_under_sanitizers.txt names, each under its reason, are left out here.
  excluded=$(grep -v -e '^#' -e '^$' "$root/tools/not_under_sanitizers.txt" | paste -sd '|')
  env "${sanitizer_env[@]}" ctest --test-dir "$no_toolkit_build" --output-on-failure -j "$(nproc)" -E "$excluded"
  fuzz_build=$no_toolkit_build
else
  say "a build that finds no CUDA toolkit"
  no_toolkit_build=$root/build-no-cuda-toolkit
  ATTNSCOPE_BUILD_DIR="$no_toolkit_build" ATTNSCOPE_BUILD_TARGETS=attnscope-cli "$root/tools/setup.sh" \
    "${no_toolkit[@]}" -DATTNSCOPE_BUILD_TESTS=OFF -DATTNSCOPE_BUILD_BENCH=OFF -DATTNSCOPE_BUILD_GUI=OFF
  grep -q "no CUDA toolkit found" "$root/.cache/cmake-configure.log"
  fuzz_build=""
fi
say "the command line of the build without a CUDA toolkit, on --device auto"
env "${sanitizer_env[@]}" "$no_toolkit_build/app/attnscope-cli" analyze --model "$root/models/all-MiniLM-L6-v2" \
  --file "$root/assets/examples/classroom.txt" --device auto --out "$no_toolkit_build/classroom.json"
# What tools/gpu_check.sh would build on a bare GPU machine from .gpu/ alone still configures
# (tools/gpu_dry_run.sh hides the system's development files); the whole dry run, which builds
# everything again, is run by hand before a GPU session.
say "the GPU machine's configuration from .gpu/ alone (tools/gpu_prepare.sh, tools/gpu_dry_run.sh: unpack, configure)"
"$root/tools/gpu_prepare.sh" --no-shapes >/dev/null
gpu_rc=0
ATTNSCOPE_GPU_STAGES="unpack configure" "$root/tools/gpu_dry_run.sh" "$root/build-gpu-dry/out" || gpu_rc=$?
if [ $gpu_rc -eq 77 ]; then
  say "skipped: the dry run needs root"
elif [ $gpu_rc -ne 0 ]; then
  cat "$root/build-gpu-dry/out/summary.md" >&2
  exit 1
fi
say "fuzzing the readers (libFuzzer, ${fuzz_seconds}s per target)"
"$root/tools/fuzz.sh" "$fuzz_seconds" ${fuzz_build:+"$fuzz_build"}
say "all passed"
