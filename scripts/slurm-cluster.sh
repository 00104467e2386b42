#!/usr/bin/env bash
# A throw-away one-host Slurm cluster (Debian's slurm-wlm and munge, no systemd): a munge
# daemon with its own key, slurmctld and one slurmd declaring several CPUs, all under DIR,
# on 127.0.0.1 and free ports. For the workflow's Slurm profile where no real cluster is at
# hand (tests, trying the profile out). Needs root (slurmd runs jobs as their users).
#   scripts/slurm-cluster.sh start DIR [CPUS]   start it (CPUS declared, default 8), wait until
#                                               the node is idle
#   scripts/slurm-cluster.sh stop DIR           stop its daemons (and any job still running)
# Slurm's commands run inside a job lose SLURM_CONF (Snakemake's job step clears SLURM_*),
# so /etc/slurm/slurm.conf is made a link to DIR/slurm.conf; start refuses to replace an
# /etc/slurm/slurm.conf that is not such a link (a real cluster's). stop removes the link.
# Jobs are recorded in DIR/jobcomp.log (jobcomp/filetxt: there is no slurmdbd).
set -euo pipefail
die() { echo "slurm-cluster: $*" >&2; exit 2; }
cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: $0 start DIR [CPUS] | stop DIR"
ETC_CONF=/etc/slurm/slurm.conf
NODE=deltameta1

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

pid_alive() {  # pid_alive PIDFILE NAME: the process of PIDFILE runs and is NAME
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ]
}

stop() {
  [ -d "$dir" ] || die "no cluster in $dir"
  dir=$(cd "$dir" && pwd)
  if [ -s "$dir/slurm.conf" ] && pid_alive "$dir/slurmctld.pid" slurmctld; then
    SLURM_CONF=$dir/slurm.conf timeout 20 scancel --full --quiet --user=root 2>/dev/null || true
  fi
  local name pid i
  for name in slurmd slurmctld munged; do
    pid_alive "$dir/$name.pid" "$name" || continue
    pid=$(cat "$dir/$name.pid")
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  if [ "$(readlink "$ETC_CONF" 2>/dev/null)" = "$dir/slurm.conf" ]; then rm -f "$ETC_CONF"; fi
  echo "slurm-cluster: stopped the cluster in $dir"
}

start() {
  local cpus=${1:-8}
  [ "$(id -u)" -eq 0 ] || die "needs root (slurmd runs every job as its user): run it with sudo"
  for tool in munged slurmctld slurmd sbatch; do
    command -v "$tool" >/dev/null || die "$tool not found: apt-get install munge slurmctld slurmd slurm-client"
  done
  mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
  if [ -e "$ETC_CONF" ] || [ -L "$ETC_CONF" ]; then
    local target
    target=$(readlink "$ETC_CONF" || true)
    case "$target" in
      */slurm.conf) [ -e "$target" ] && [ "$target" != "$dir/slurm.conf" ] && [ -n "$(cat "$(dirname "$target")/slurmctld.pid" 2>/dev/null)" ] &&
                      pid_alive "$(dirname "$target")/slurmctld.pid" slurmctld &&
                      die "another throw-away cluster runs ($target): stop it first (scripts/slurm-cluster.sh stop $(dirname "$target"))" ;;
      *) die "$ETC_CONF exists and is not a throw-away cluster's: this host has a Slurm configuration of its own; use that cluster" ;;
    esac
  fi
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
  chmod 755 "$dir/munge"
  [ -s "$dir/munge/munge.key" ] || { head -c 1024 /dev/urandom > "$dir/munge/munge.key"; chmod 400 "$dir/munge/munge.key"; }
  local memory ctld_port slurmd_port
  memory=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
  ctld_port=$(free_port) slurmd_port=$(free_port)
  cat > "$dir/slurm.conf" <<CONF
# Written by scripts/slurm-cluster.sh: a throw-away one-host cluster.
$(grep -v '^#' "$(dirname "$0")/slurm-common.conf")
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/slurmd-%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
JobCompLoc=$dir/jobcomp.log
SlurmdParameters=config_overrides
SlurmdTimeout=30
SchedulerParameters=sched_min_interval=100000
NodeName=$NODE NodeHostname=$(hostname) NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
CONF
  mkdir -p "$(dirname "$ETC_CONF")"
  ln -sfn "$dir/slurm.conf" "$ETC_CONF"
  export SLURM_CONF=$dir/slurm.conf
  munged --force --key-file "$dir/munge/munge.key" --socket "$dir/munge/munge.socket" \
    --pid-file "$dir/munged.pid" --log-file "$dir/log/munged.log" --seed-file "$dir/munge/seed" ||
    die "munged did not start (see $dir/log/munged.log)"
  slurmctld -f "$dir/slurm.conf" -i || die "slurmctld did not start (see $dir/log/slurmctld.log)"
  slurmd -f "$dir/slurm.conf" -N "$NODE" || die "slurmd did not start (see $dir/log/slurmd.log)"
  local deadline=$((SECONDS + 60)) state=""
  while [ $SECONDS -lt $deadline ]; do
    state=$(sinfo -h -n "$NODE" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    pid_alive "$dir/slurmctld.pid" slurmctld || break
    sleep 0.2
  done
  [ "$state" = idle ] || { stop >/dev/null; die "node $NODE is '${state:-unknown}', not idle, after 60 s (logs in $dir/log)"; }
  echo "slurm-cluster: one node ($NODE, $cpus CPUs) ready; SLURM_CONF=$dir/slurm.conf (linked from $ETC_CONF)"
}

case "$cmd" in
  start) start "${3:-8}" ;;
  stop) stop ;;
  *) die "usage: $0 start DIR [CPUS] | stop DIR" ;;
esac
