#!/usr/bin/env bash
# Set up, build, and run attnscope. With no arguments it analyses an example text with the test
# model and saves the result; any arguments are passed to attnscope-cli instead, e.g.
#   tools/run.sh analyze --model models/all-MiniLM-L6-v2 --text "Your text" --out result.json
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

"$root/tools/setup.sh" >&2
cli=$root/build/app/attnscope-cli
if [ $# -gt 0 ]; then exec "$cli" "$@"; fi
model=$root/models/all-MiniLM-L6-v2
example=$root/assets/examples/lighthouse.txt
"$cli" tokenize --model "$model" --file "$example" --max-len 24
"$cli" analyze --model "$model" --file "$example" --out "$root/build/example-result.json"
