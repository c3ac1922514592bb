#!/usr/bin/env bash
# A Slurm cluster of one node, this machine, kept entirely in one folder: for
# trying `make grade ... SLURM=1` before using the university's cluster, and
# for the grader's Slurm test (grader/tests/test_slurm.py).
#
#   scripts/slurm-local-cluster.sh start DIR   writes DIR/slurm.conf, a munge key, starts munged,
#                                              slurmctld and slurmd; prints the line to source
#   scripts/slurm-local-cluster.sh stop DIR    stops the three daemons started in DIR
#   scripts/slurm-local-cluster.sh env DIR     prints `export SLURM_CONF=DIR/slurm.conf`
#
# Then `export SLURM_CONF=DIR/slurm.conf` makes sbatch, squeue, scancel, ... use it.
# Needs Debian's packages slurm-wlm and munge (scripts/bootstrap.sh --slurm), no
# systemd, and nothing outside DIR: the daemons run as the current user, with a
# key, sockets, ports and logs of their own, so a cluster already on the machine
# is not touched. The node announces GPUS (1 to 4, default 2) GPUs that stand in
# for real ones: `--gres=gpu:1` is scheduled as on a GPU node, but the jobs see
# no GPU unless the machine has one. Ports: SLURM_LOCAL_PORT and the next
# one (default 16817).
set -euo pipefail

usage() { echo "usage: $0 start|stop|env DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)
port=${SLURM_LOCAL_PORT:-16817}
gpus=${GPUS:-2}
case "$gpus" in 1|2|3|4) ;; *) echo "GPUS must be 1 to 4" >&2; exit 2 ;; esac
node=$(hostname -s)
user=$(id -un)

say() { printf 'slurm-local-cluster: %s\n' "$*"; }

need() {
  local program
  for program in "$@"; do
    if ! command -v "$program" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$program" ]; then
      say "$program is not installed: apt-get install slurm-wlm munge (or scripts/bootstrap.sh --slurm)"
      exit 1
    fi
  done
}
sbin() { command -v "$1" 2>/dev/null || echo "/usr/sbin/$1"; }

# Waits up to $2 seconds for the command $1 to succeed.
wait_for() {
  local tries=$(( $2 * 5 ))
  until eval "$1" >/dev/null 2>&1; do
    tries=$((tries - 1))
    [ "$tries" -gt 0 ] || return 1
    sleep 0.2
  done
}

stop_daemon() {  # pid file, name
  [ -f "$1" ] || return 0
  local pid
  pid=$(cat "$1")
  if kill "$pid" 2>/dev/null; then
    wait_for "! kill -0 $pid" 10 || kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
}

case "$action" in
  env)
    echo "export SLURM_CONF=$dir/slurm.conf"
    ;;
  stop)
    stop_daemon "$dir/slurmd.pid" slurmd
    stop_daemon "$dir/slurmctld.pid" slurmctld
    stop_daemon "$dir/munged.pid" munged
    say "stopped the cluster in $dir"
    ;;
  start)
    need munged slurmctld slurmd sbatch
    mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
    chmod 700 "$dir/munge"
    # munge: a key of our own; munged refuses a key others can read.
    if [ ! -f "$dir/munge/munge.key" ]; then
      dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    fi
    chmod 400 "$dir/munge/munge.key"
    # --force: munged otherwise refuses to run as root (CI runs as root).
    "$(sbin munged)" --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
      --pid-file="$dir/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"
    wait_for "[ -S '$dir/munge/munge.socket' ]" 10 || { say "munged did not start: $dir/munge/munged.log"; exit 1; }

    cpus=$(nproc)
    cat >"$dir/slurm.conf" <<CONF
# A one-node cluster for trying the grader's Slurm mode (scripts/slurm-local-cluster.sh).
ClusterName=memlab-local
SlurmctldHost=$node
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# No cgroups and no systemd: processes are tracked by their parents, and not bound to CPUs.
# A production GPU cluster should constrain each job to its GPUs instead: TaskPlugin=task/cgroup
# here and ConstrainDevices=yes in cgroup.conf, so that a job cannot open another job's
# /dev/nvidiaN. grade.py's tasks keep students' code to their one GPU either way (each turns
# Slurm's CUDA_VISIBLE_DEVICES index into that GPU's UUID, and its sandbox binds that GPU's
# device node alone); the cgroup also keeps the grader itself, and anything else, to it.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
KillWait=5
MinJobAge=600
# GPUs as a count: jobs asking for --gres=gpu:1 are scheduled, one per GPU.
GresTypes=gpu
NodeName=$node CPUs=$cpus Gres=gpu:$gpus State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
    # slurmd drops a GPU without a device file: harmless character devices stand in for
    # /dev/nvidia0.. (with TaskPlugin=task/none nothing is bound to them).
    : >"$dir/gres.conf"
    for file in $(echo /dev/null /dev/zero /dev/full /dev/urandom | cut -d' ' -f"1-$gpus"); do
      echo "NodeName=$node Name=gpu File=$file" >>"$dir/gres.conf"
    done
    export SLURM_CONF="$dir/slurm.conf"
    "$(sbin slurmctld)" -c
    wait_for "scontrol ping | grep -q UP" 20 || { say "slurmctld did not start: $dir/slurmctld.log"; tail -5 "$dir/slurmctld.log" >&2 || true; exit 1; }
    "$(sbin slurmd)"
    wait_for "sinfo -h -N -o %T | grep -Eq '^(idle|mixed|allocated)'" 30 || {
      say "slurmd did not register: $dir/slurmd.log"; tail -5 "$dir/slurmd.log" >&2 || true; exit 1; }
    say "one node ($node, $cpus CPUs, $gpus GPUs standing in) is up; use it with:"
    echo "export SLURM_CONF=$dir/slurm.conf"
    ;;
  *) usage ;;
esac
