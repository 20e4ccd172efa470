#!/usr/bin/env bash
# Makes the README's screenshots with the explorer's scripted-screenshot mode (attnscope
# --screenshot), under Xvfb when there is no display. Run tools/setup.sh first.
#   tools/screenshots.sh [OUT_DIR]   (default docs/screenshots)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/docs/screenshots}
app=$root/build/app/attnscope
cli=$root/build/app/attnscope-cli
model=$root/models/all-MiniLM-L6-v2
text=$root/assets/examples/classroom.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

run() {
  local name=$1
  shift
  local cmd=("$app" --model "$model" --settings "$tmp/settings.json" --width 1280 --height 800 --screenshot "$out/$name.png" "$@")
  if [ -n "${DISPLAY:-}" ]; then "${cmd[@]}"; else xvfb-run -a -s "-screen 0 1600x1200x24" "${cmd[@]}"; fi
  echo "wrote $out/$name.png"
}

"$cli" corpus --model "$model" --input "$root/assets/examples" --out "$tmp/corpus.json" >/dev/null 2>&1
"$root/.venv/bin/python" "$root/tools/perturb_checkpoint.py" "$model" "$tmp/noisy" --noise 0.05 >/dev/null
run grid --file "$text" --view grid --matrix similarity
run head --file "$text" --view head --matrix similarity --layer 2 --head 5
run separators --file "$text" --view separators --layer 5 --head 0
run pairs --file "$text" --view pairs --layer 2 --head 5
run stats --file "$text" --view stats --layer 5 --head 3
run layers --file "$text" --view layers
run lines --file "$text" --view lines --layer 1 --head 4
run corpus --file "$text" --view corpus --corpus-result "$tmp/corpus.json" --layer 5
run compare --file "$text" --view compare --compare-model "$tmp/noisy" --compare-shown side --layer 2 --head 5
run compare-changed --file "$text" --view compare --compare-model "$tmp/noisy" --compare-shown changed --layer 2 --head 5
run presentation --file "$text" --view head --layer 2 --head 5 --presentation
