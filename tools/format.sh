#!/usr/bin/env bash
# Formats the project's C++ with its .clang-format (Debian 12's clang-format 14, which
# tools/setup.sh installs: another version may lay out a few lines differently).
#   tools/format.sh           format every C++ file in place
#   tools/format.sh --check   change nothing; list the files that are not formatted and exit 1 (tools/test.sh runs this)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
clang_format=${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}
if [ -z "$clang_format" ]; then
  echo "tools/format.sh: clang-format is not installed (apt-get install clang-format, or run tools/setup.sh)" >&2
  exit 2
fi
# Tracked files and new ones git does not ignore; build folders and .venv are ignored.
# (A file deleted but not yet staged is still listed: only the ones that exist are read.)
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.h' | sort -u |
  while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done)
if [ "${1:-}" != --check ]; then
  printf '%s\0' "${files[@]}" | xargs -0 -P "$(nproc)" -n 20 "$clang_format" -i
  exit 0
fi
unformatted=()
for f in "${files[@]}"; do
  "$clang_format" "$f" | cmp -s - "$f" || unformatted+=("$f")
done
if [ ${#unformatted[@]} -gt 0 ]; then
  printf '%s\n' "${unformatted[@]}" >&2
  echo "tools/format.sh: ${#unformatted[@]} file(s) above are not formatted as .clang-format says; run tools/format.sh" >&2
  exit 1
fi
echo "tools/format.sh: ${#files[@]} C++ files formatted as .clang-format says"
