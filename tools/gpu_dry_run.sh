#!/usr/bin/env bash
# A dry run of tools/gpu_check.sh on the development machine, as close to the bare GPU machine as
# one can be without a GPU: in a mount namespace of its own, the system's development files
# (headers, pkg-config and CMake package files of every library the build takes from .gpu/) are
# hidden, so that the build can only find what tools/gpu_prepare.sh carries; the CPU libtorch of
# .venv stands in for the machine's, and the suites and benchmarks run on the CPU. Needs root (a
# mount namespace) and tools/setup.sh's .venv.
#   tools/gpu_dry_run.sh OUT_DIR
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: tools/gpu_dry_run.sh OUT_DIR" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "tools/gpu_dry_run.sh: needs root (it hides the system's development files in a mount namespace)" >&2; exit 77; }
unshare --mount --propagation private true 2>/dev/null ||
  { echo "tools/gpu_dry_run.sh: this machine allows no mount namespace (unshare --mount): skipped" >&2; exit 77; }
[ -f "$root/.gpu/prefix.tar.xz" ] || "$root/tools/gpu_prepare.sh"
hidden=(
  /usr/include/nlohmann /usr/include/CLI /usr/include/gtest /usr/include/gmock /usr/include/cairo /usr/include/imgui
  /usr/include/GLFW /usr/include/GL /usr/include/curl /usr/include/openssl /usr/include/fontconfig /usr/include/stb
  /usr/include/x86_64-linux-gnu/curl /usr/include/x86_64-linux-gnu/openssl
  /usr/lib/x86_64-linux-gnu/pkgconfig /usr/share/pkgconfig /usr/lib/x86_64-linux-gnu/cmake /usr/share/cmake
)
files=(/usr/include/utf8proc.h /usr/include/pcre2.h)
script='set -e; for d in "$@"; do case $d in --) break;; esac; [ -d "$d" ] && mount -t tmpfs none "$d"; shift; done; shift
for f in '"${files[*]}"'; do [ -f "$f" ] && mount --bind /dev/null "$f"; done
exec env ATTNSCOPE_TEST_DEVICE=cpu ATTNSCOPE_BENCH_DEVICE=cpu ATTNSCOPE_PYTHON='"$root"'/.venv/bin/python \
  ATTNSCOPE_BUILD_DIR="${ATTNSCOPE_BUILD_DIR:-'"$root"'/build-gpu-dry}" ATTNSCOPE_GPU_DEADLINE="${ATTNSCOPE_GPU_DEADLINE:-7200}" \
  ATTNSCOPE_CORPUS_WINDOWS="${ATTNSCOPE_CORPUS_WINDOWS:-2000}" ATTNSCOPE_GLX_VENDOR=mesa ATTNSCOPE_GPU_SLOWER=8 "$@"'
unshare --mount --propagation private bash -c "$script" dry-run "${hidden[@]}" -- "$root/tools/gpu_check.sh" "$1"
