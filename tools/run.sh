#!/usr/bin/env bash
# Set up, build, and open the desktop explorer on an example text with the test model.
#   tools/run.sh                      the explorer (under Xvfb with a screenshot when there is no display)
#   tools/run.sh --view pairs ...     the explorer with these options (attnscope --help)
#   tools/run.sh analyze ...          attnscope-cli with these arguments (tokenize, analyze, pairs,
#                                     stats, corpus, figure)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

"$root/tools/setup.sh" >&2
case "${1:-}" in
  tokenize | analyze | pairs | stats | corpus | figure) exec "$root/build/app/attnscope-cli" "$@" ;;
esac
app=$root/build/app/attnscope
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then exec "$app" "$@"; fi
# No display (a server, CI): render the explorer offscreen once and say where the picture is.
shot=$root/build/attnscope-screenshot.png
echo "[run] no display: rendering the explorer under Xvfb into ${shot#"$root"/}" >&2
xvfb-run -a -s "-screen 0 1600x1200x24" "$app" --width 1280 --height 800 --screenshot "$shot" "$@"
echo "[run] wrote $shot (open the explorer on a desktop with: build/app/attnscope)" >&2
