#!/usr/bin/env bash
# A corpus run as a Slurm job array on a real one-node Slurm (tools/slurm/local_cluster.sh): four
# shard tasks and a dependent merge job give the same result as the run in one piece; a task
# cancelled while it runs leaves its shard missing, merge refuses and names it, and resubmitting
# only that shard completes the run; a sweep over two models gives each model's run in one piece.
# Exit 77 (skipped) where Slurm cannot start here.
#   tests/slurm/test_slurm_array.sh [attnscope-cli]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export ATTNSCOPE_CLI=${1:-$root/build/app/attnscope-cli}
model=$root/models/all-MiniLM-L6-v2
tmp=$(mktemp -d)
cluster=$tmp/cluster
cleanup() {
  "$root/tools/slurm/local_cluster.sh" stop "$cluster" || true
  rm -rf "$tmp"
}
trap cleanup EXIT
started=$("$root/tools/slurm/local_cluster.sh" start "$cluster") || exit $?
eval "$started"

# A corpus in no fixture: sentences drawn at random from a word list, a new draw every run.
python3 - "$tmp/corpus.txt" <<'PY'
import random, sys
words = "the keeper lamp harbour boat night storm light tower sea wind bell ship rock cliff path old new long dark bright".split()
rng = random.Random()
with open(sys.argv[1], "w") as f:
    for _ in range(900):
        f.write(" ".join(rng.choice(words) for _ in range(rng.randint(4, 14))) + rng.choice([". ", "! ", "? "]))
PY
run=(--model "$model" --input "$tmp/corpus.txt" --max-len 64 --batch 8)
"$ATTNSCOPE_CLI" corpus "${run[@]}" --out "$tmp/whole.json" > /dev/null

wait_for() {  # the jobs, until the queue holds none of them
  for _ in $(seq 600); do
    [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  echo "jobs $1 did not finish" >&2
  squeue >&2
  return 1
}
same_as_whole() { python3 "$root/tools/same_corpus_result.py" "$tmp/whole.json" "$1"; }

out=$tmp/array
"$root/tools/slurm/corpus_array.sh" --out "$out" --shards 4 --submit -- "${run[@]}"
read -r tasks merge < "$out/jobs"
wait_for "$tasks,$merge"
[ -f "$out/merged.json" ] || { echo "the merge job wrote nothing"; cat "$out"/logs/*; exit 1; }
same_as_whole "$out/merged.json"

# A task cancelled while it runs: its shard is missing, the merge job never starts.
out=$tmp/cancelled
"$root/tools/slurm/corpus_array.sh" --out "$out" --shards 4 --parallel 1 --submit -- "${run[@]}"
read -r tasks merge < "$out/jobs"
for _ in $(seq 600); do
  [ "$(squeue -h -j "${tasks}_2" -o %t 2>/dev/null)" = R ] && break
  sleep 0.1
done
scancel "${tasks}_2"
for _ in $(seq 600); do [ -z "$(squeue -h -j "$tasks" 2>/dev/null)" ] && break; sleep 0.5; done
scancel "$merge" 2>/dev/null || true  # its dependency can no longer be met
if "$ATTNSCOPE_CLI" merge "$out/by-hand.json" "$out/shards" 2> "$out/refusal"; then echo "merge accepted a run with a shard missing"; exit 1; fi
grep -E "shard 2 of 4 is (missing|partial)" "$out/refusal" || { cat "$out/refusal"; exit 1; }
[ ! -f "$out/by-hand.json" ] || { echo "merge wrote a result after refusing"; exit 1; }
"$root/tools/slurm/corpus_array.sh" --out "$out" --shards 4 --resubmit -- "${run[@]}" | tee "$out/resubmitted"
grep -q "shards missing or partial: 2$" "$out/resubmitted"
read -r tasks merge < "$out/jobs"
wait_for "$tasks,$merge"
same_as_whole "$out/merged.json"

# A sweep: the same corpus on two models, 3 shards each, one array of 6 tasks and one merge job.
sweep=(--input "$tmp/corpus.txt" --max-len 32 --batch 8)
models=("$root/tests/golden/checkpoints/roberta" "$root/tests/golden/checkpoints/modernbert")
out=$tmp/sweep
"$root/tools/slurm/corpus_array.sh" --out "$out" --shards 3 --models "${models[*]}" --submit -- "${sweep[@]}"
read -r tasks merge < "$out/jobs"
wait_for "$tasks,$merge"
for m in 0 1; do
  "$ATTNSCOPE_CLI" corpus "${sweep[@]}" --model "${models[m]}" --out "$tmp/whole-$m.json" > /dev/null 2>&1
  python3 "$root/tools/same_corpus_result.py" "$tmp/whole-$m.json" "$out/model-$m/merged.json"
done
echo "slurm array test passed"
