#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the tests: Debian's munged, slurmctld and slurmd
# with their key, configuration, state, spool and logs all in one folder, on free loopback ports;
# no system service or file outside the folder is touched. Needs root (slurmd runs jobs as their
# users) and the packages slurmctld, slurmd, slurm-client and munge.
#   tools/slurm/local_cluster.sh start DIR   starts it; prints "export SLURM_CONF=DIR/slurm.conf"
#   tools/slurm/local_cluster.sh stop DIR    stops every daemon it started
# Exit status 77 when Slurm cannot run here (not root, a package missing): the tests skip then.
set -euo pipefail
action=${1:?start or stop}
dir=$(realpath -m "${2:?a folder for the cluster}")

stop() {
  for pidfile in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  done
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

start() {
  if [ "$(id -u)" != 0 ]; then echo "local Slurm needs root (slurmd starts jobs as their users)" >&2; exit 77; fi
  for tool in munged slurmctld slurmd sbatch; do
    command -v "$tool" >/dev/null || { echo "local Slurm needs $tool (Debian: munge, slurmctld, slurmd, slurm-client)" >&2; exit 77; }
  done
  mkdir -p "$dir"/state "$dir"/spool "$dir"/munge
  chmod 700 "$dir"/munge
  head -c 1024 /dev/urandom > "$dir/munge/munge.key"
  chmod 400 "$dir/munge/munge.key"
  munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" --pid-file="$dir/munged.pid" \
    --log-file="$dir/munged.log" --seed-file="$dir/munge/munge.seed"
  local host cpus memory
  host=$(hostname -s)
  cpus=$(nproc)
  memory=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
  cat > "$dir/slurm.conf" <<CONF
ClusterName=attnscope-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CryptoType=crypto/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -f "$SLURM_CONF" -i
  slurmd -f "$SLURM_CONF"
  for _ in $(seq 100); do
    state=$(sinfo -h -o %t 2>/dev/null || true)
    case "$state" in idle*|mix*|alloc*) echo "export SLURM_CONF=$SLURM_CONF"; return 0 ;; esac
    sleep 0.2
  done
  echo "local Slurm did not come up (node state: ${state:-none}); logs in $dir" >&2
  tail -5 "$dir"/slurmctld.log "$dir"/slurmd.log >&2 || true
  stop
  exit 1
}

case "$action" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
