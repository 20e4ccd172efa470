#!/usr/bin/env bash
# Idle CPU of the explorer, measured from outside: the real window under Xvfb, left alone once
# its first analysis is shown, its CPU time (user + system, all threads, from /proc) read before
# and after `seconds` of nothing happening. Prints a Markdown row for bench/RESULTS.md.
#   bench/run_idle.sh [seconds] [model] [settle seconds]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-10}
model=${2:-$root/models/all-MiniLM-L6-v2}
settle=${3:-15}
settings=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$settings"' EXIT
xvfb-run -a -s "-screen 0 1600x1000x24" "$root/build/app/attnscope" --model "$model" --settings "$settings/settings.json" \
  --width 1280 --height 800 >/dev/null 2>&1 &
wrapper=$!
# The explorer is xvfb-run's grandchild: find it by name among the wrapper's descendants.
for _ in $(seq 50); do
  pid=$(pgrep -n -f "$root/build/app/attnscope --model" || true)
  [ -n "$pid" ] && break
  sleep 0.2
done
[ -n "$pid" ] || { echo "the explorer did not start" >&2; exit 1; }
sleep "$settle"  # model loaded, first analysis shown
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
before=$(ticks)
sleep "$seconds"
after=$(ticks)
kill "$wrapper" 2>/dev/null || true
python3 - "$before" "$after" "$hz" "$seconds" "$(basename "$model")" <<'PY'
import sys
before, after, hz, seconds, model = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
cpu = (after - before) / hz
print(f"| {model} | {seconds:.0f} s | {cpu:.2f} s | {100 * cpu / seconds:.2f}% |")
PY
