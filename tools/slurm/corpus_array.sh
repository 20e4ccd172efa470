#!/usr/bin/env bash
# A corpus run as a Slurm job array: one shard per task (attnscope-cli corpus --shard K/N), then a
# merge job that starts when every task has succeeded (--dependency=afterok). Writes the two job
# scripts into OUT_DIR and, with --submit, submits them. Run it again with --resubmit to submit
# only the shards whose results are missing or partial (a failed or cancelled task), and a new
# merge job after them; a partial shard resumes where it stopped. With --models, one corpus runs
# on several models (a sweep: one more array dimension, one merged result per model).
#
#   tools/slurm/corpus_array.sh --out OUT_DIR --shards N [--parallel K] [--gpu] [--models "M1 M2 ..."]
#                               [--submit|--resubmit] -- corpus options (--model M --input I --max-len 128 ...)
#
# OUT_DIR/shards/shard-K.json are the shards, OUT_DIR/merged.json (and merged-csv/) the result;
# with --models, the same in OUT_DIR/model-I/ for the I-th model (listed in OUT_DIR/models.txt).
# OUT_DIR/logs/ holds the tasks' logs. ATTNSCOPE_CLI names the attnscope-cli to run (default: this
# checkout's build). Extra sbatch options go in SBATCH_OPTIONS (a partition, an account, a time).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cli=${ATTNSCOPE_CLI:-$root/build/app/attnscope-cli}
out="" shards="" parallel="" gpu=0 mode=write
models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --shards) shards=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    --gpu) gpu=1; shift ;;
    --models) read -r -a models <<< "${2//,/ }"; shift 2 ;;
    --submit) mode=submit; shift ;;
    --resubmit) mode=resubmit; shift ;;
    --) shift; break ;;
    *) echo "unknown option $1 (corpus options go after --)" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] && [ -n "$shards" ] || { echo "--out and --shards are required" >&2; exit 2; }
case "$shards" in '' | *[!0-9]* | 0) echo "--shards must be a positive number" >&2; exit 2 ;; esac
[ $# -gt 0 ] || { echo "corpus options (--model, --input, ...) go after --" >&2; exit 2; }
mkdir -p "$out/logs"
out=$(realpath "$out")
# Result folders, one per model of a sweep (or the output folder itself), and the array's size.
dirs=("$out")
if [ ${#models[@]} -gt 0 ]; then
  dirs=()
  for m in "${!models[@]}"; do dirs+=("$out/model-$m"); done
  printf '%s\n' "${models[@]}" > "$out/models.txt"
fi
for d in "${dirs[@]}"; do mkdir -p "$d/shards"; done
tasks=$(( ${#dirs[@]} * shards ))

quoted=$(printf ' %q' "$@")
model_list=""
[ ${#models[@]} -eq 0 ] || model_list=$(printf ' %q' "${models[@]}")
gres=""
[ "$gpu" = 1 ] && gres="#SBATCH --gres=gpu:1"
cat > "$out/task.sh" <<TASK
#!/usr/bin/env bash
#SBATCH --job-name=attnscope-corpus
#SBATCH --output=$out/logs/task-%a.log
$gres
# One shard of the corpus run (written by tools/slurm/corpus_array.sh); a partial shard resumes.
set -euo pipefail
models=($model_list)
task=\${SLURM_ARRAY_TASK_ID}
if [ \${#models[@]} -gt 0 ]; then
  k=\$((task % $shards)) dir=$out/model-\$((task / $shards)) model=(--model "\${models[\$((task / $shards))]}")
else
  k=\$task dir=$out model=()
fi
shard=\$dir/shards/shard-\$k.json
resume=()
[ -f "\$shard" ] && resume=(--resume)
exec $(printf %q "$cli") corpus$quoted "\${model[@]}" --shard \$k/$shards --out "\$shard" "\${resume[@]}"
TASK
cat > "$out/merge.sh" <<MERGE
#!/usr/bin/env bash
#SBATCH --job-name=attnscope-merge
#SBATCH --output=$out/logs/merge.log
# Sums the $shards shards into the whole run, for each model (written by tools/slurm/corpus_array.sh).
set -euo pipefail
for dir in$(printf ' %q' "${dirs[@]}"); do
  $(printf %q "$cli") merge "\$dir/merged.json" "\$dir/shards"
done
MERGE
chmod +x "$out/task.sh" "$out/merge.sh"

# Shards whose result is missing or partial: what a resubmission runs again.
unfinished() {
  local m k list=""
  for m in "${!dirs[@]}"; do
    for k in $(seq 0 $((shards - 1))); do
      f=${dirs[m]}/shards/shard-$k.json
      if [ ! -f "$f" ] || grep -q '"partial":true' "$f"; then list="$list${list:+,}$((m * shards + k))"; fi
    done
  done
  echo "$list"
}

submit() {
  local array=$1 throttle=""
  [ -n "$parallel" ] && throttle="%$parallel"
  # shellcheck disable=SC2086
  task_job=$(sbatch --parsable ${SBATCH_OPTIONS:-} --array="$array$throttle" "$out/task.sh")
  # shellcheck disable=SC2086
  merge_job=$(sbatch --parsable ${SBATCH_OPTIONS:-} --dependency="afterok:${task_job%%;*}" "$out/merge.sh")
  echo "submitted tasks $array as job ${task_job%%;*}, the merge as job ${merge_job%%;*}"
  echo "${task_job%%;*} ${merge_job%%;*}" > "$out/jobs"
}

case "$mode" in
  write) echo "wrote $out/task.sh and $out/merge.sh; submit with --submit" ;;
  submit) submit "0-$((tasks - 1))" ;;
  resubmit)
    todo=$(unfinished)
    if [ -z "$todo" ]; then echo "every shard is complete; merging needs no task: sbatch $out/merge.sh"; exit 0; fi
    echo "shards missing or partial: $todo"
    submit "$todo" ;;
esac
