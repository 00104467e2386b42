#!/usr/bin/env bash
# The multi-node cluster on this Docker host (docker/compose.yaml):
#   docker/cluster.sh up [--nodes N] [--out DIR]   start N nodes (default 3) and wait until
#                                                   each runs sshd, a Ceph OSD and slurmd,
#                                                   the pools answer in every group and the
#                                                   CephFS deltameta has its MDS (the head's)
#   docker/cluster.sh run [SNAKEMAKE ARGS]          the workflow's multi-node profile from the
#                                                   head (ranks on every node, stores in RADOS)
#   docker/cluster.sh slurm-run [SNAKEMAKE ARGS]    the same submitted through the cluster's
#                                                   Slurm (config/profiles/slurm): one job per
#                                                   run, on every node (fewer for fewer ranks)
#   docker/cluster.sh exec CMD...                   a command on the head
#   docker/cluster.sh down                          remove containers, network and volume
# Environment: DELTAMETA_IMAGE (default deltameta), DELTAMETA_CLUSTER (the Compose project,
# default deltameta), DELTAMETA_POOL_WAIT_S (how long up waits for the pools and the MDS,
# default 150).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
project=${DELTAMETA_CLUSTER:-deltameta}
die() { echo "cluster: $*" >&2; exit 2; }
# Compose v2 (docker compose) where installed, else the standalone docker-compose.
if docker compose version >/dev/null 2>&1; then compose_cmd=(docker compose); else compose_cmd=(docker-compose); fi
# The results folder only matters to `up`; other commands name the running project.
compose() { DELTAMETA_OUT=${DELTAMETA_OUT:-/unused} "${compose_cmd[@]}" -f "$here/compose.yaml" -p "$project" "$@"; }

up() {
  local nodes=3 out=$PWD/out
  while [ $# -gt 0 ]; do
    case "$1" in
      --nodes) nodes=$2; shift 2 ;;
      --out) out=$2; shift 2 ;;
      *) die "unknown option $1 (up takes --nodes N and --out DIR)" ;;
    esac
  done
  [[ "$nodes" =~ ^[0-9]+$ ]] && [ "$nodes" -ge 2 ] || die "--nodes must be a number of at least 2, not '$nodes'"
  docker image inspect "${DELTAMETA_IMAGE:-deltameta}" >/dev/null 2>&1 ||
    die "no image ${DELTAMETA_IMAGE:-deltameta}: build it first (docker/README.md)"
  mkdir -p "$out" && out=$(cd "$out" && pwd)
  DELTAMETA_OUT=$out DELTAMETA_NODES=$nodes compose up -d --scale node=$((nodes - 1)) >/dev/null
  local deadline=$((SECONDS + 180)) ready=0 head_id why=""
  head_id=$(compose ps -q head)
  while [ $SECONDS -lt $deadline ]; do
    if ready=$(docker exec "$head_id" sh -c 'ls /cluster/ready 2>/dev/null | wc -l' 2>&1) && [[ "$ready" =~ ^[0-9]+$ ]]; then
      why=""
    else
      why=$ready ready=0
    fi
    [ "$ready" -ge "$nodes" ] && break
    if [ -n "$(compose ps -q | xargs docker inspect --format '{{if not .State.Running}}x{{end}}')" ]; then
      report_start_up >&2
      die "a node stopped during start-up (above: each node's start-up log)"
    fi
    sleep 1
  done
  if [ "$ready" -lt "$nodes" ]; then
    report_start_up >&2
    [ -z "$why" ] || echo "the ready check on the head failed: $why" >&2
    die "only $ready of $nodes nodes became ready within 180 s (above: each node's start-up log; all logs: docker/cluster.sh exec sh -c 'tail /cluster/log/*')"
  fi
  # The pool is made once every node's OSD is up, so that its groups are placed once: made
  # with the monitor, before the OSDs joined, its groups moved to each OSD as it came and
  # peered again, and twice on a busy machine (2026-11-28) a group on the OSD that came last
  # never answered. A cluster started again finds the pools there. Pool test is the original
  # prototype's, its name fixed in its source (core/bench/original_rados.py).
  local wait_s=${DELTAMETA_POOL_WAIT_S:-150} pool pgs
  [[ "$wait_s" =~ ^[0-9]+$ ]] || die "DELTAMETA_POOL_WAIT_S must be a whole number of seconds, not '$wait_s'"
  for pool in deltameta:32 test:8 deltameta-fs-metadata:8 deltameta-fs-data:8; do
    pgs=${pool#*:} pool=${pool%:*}
    why=$(docker exec "$head_id" timeout 60 ceph -c /cluster/ceph/ceph.conf --connect-timeout 50 \
            osd pool create "$pool" "$pgs" 2>&1) || die "cannot create the pool $pool: ${why##*$'\n'}"
  done
  # Every OSD up is not yet every placement group active: listing a pool asks every group's
  # primary, and a run's first requests would otherwise wait on one still peering.
  deadline=$((SECONDS + wait_s))
  for pool in deltameta test deltameta-fs-metadata deltameta-fs-data; do
    until why=$(docker exec "$head_id" timeout 40 rados -c /cluster/ceph/ceph.conf -p "$pool" ls 2>&1 >/dev/null); do
      why=${why##*$'\n'}
      if [ $SECONDS -ge $deadline ]; then
        report_placement_groups "$head_id" >&2
        die "the pool $pool did not answer in every placement group within $wait_s s of the nodes being ready (${why:-no answer within 40 s}; above: what the monitor knows and the OSDs' last log lines)"
      fi
      sleep 1
    done
  done
  start_cephfs "$head_id" "$deadline"
  echo "cluster: $nodes nodes ready (results go to $out)"
}

# The CephFS deltameta on its two pools, once (a cluster started again has it), and its
# MDS (the head's, node.sh) active by the deadline: the cephfs system's file system.
start_cephfs() {
  local c=(docker exec "$1" timeout 60 ceph -c /cluster/ceph/ceph.conf --connect-timeout 50) why
  if ! "${c[@]}" fs ls 2>/dev/null | grep -q "^name: deltameta,"; then
    why=$("${c[@]}" fs new deltameta deltameta-fs-metadata deltameta-fs-data 2>&1) ||
      die "cannot make the CephFS deltameta: ${why##*$'\n'}"
  fi
  until "${c[@]}" mds stat 2>/dev/null | grep -q "up:active"; do
    if [ $SECONDS -ge "$2" ]; then
      why=$("${c[@]}" mds stat 2>&1)
      die "the CephFS deltameta has no active MDS within the pools' wait (mds stat: ${why##*$'\n'}; the head's MDS log: docker/cluster.sh exec tail /cluster/log/$(docker exec "$1" hostname).mds.log; a rank marked damaged comes back with docker/cluster.sh exec ceph -c /cluster/ceph/ceph.conf mds repaired deltameta:0)"
    fi
    sleep 1
  done
}

# Where each node's start-up stands: its container's state and the last steps node.sh logged
# (of a node that stopped, enough for the daemon logs it ended with).
report_start_up() {
  local id lines
  for id in $(compose ps -q); do
    docker inspect --format '{{.Name}}: {{.State.Status}} (exit code {{.State.ExitCode}}), host {{.Config.Hostname}}' "$id"
    lines=6
    [ "$(docker inspect --format '{{.State.Running}}' "$id")" = true ] || lines=40
    docker logs --tail $lines "$id" 2>&1 | sed 's/^/  /'
  done
}

# Why the pool may not answer, from what the monitor knows (the cluster has no manager to
# report groups): its health, the pool, each OSD's state and addresses; each OSD's last log
# lines, and what its requests in flight wait for (a command that fails or hangs says so,
# and the next runs).
report_placement_groups() {
  docker exec "$1" sh -c '
    c="timeout 20 ceph -c /cluster/ceph/ceph.conf --connect-timeout 15"
    echo "ceph health detail:"; $c health detail 2>&1 | head -n 12
    echo "ceph osd pool ls detail:"; $c osd pool ls detail 2>&1 | head -n 4
    echo "ceph osd dump (the OSDs):"; $c osd dump 2>&1 | grep "^osd\."
    for f in /cluster/log/*.osd.log; do echo "$f:"; grep . "$f" | tail -n 8; done' 2>&1 | sed 's/^/  /'
  # What each OSD's waiting requests wait for (its admin socket, on its own node).
  local id
  for id in $(compose ps -q); do
    docker exec "$id" sh -c 'for s in /var/run/ceph/ceph-osd.*.asok; do
        echo "$(hostname) $(basename "$s" .asok), requests in flight:"
        timeout 20 ceph --admin-daemon "$s" dump_ops_in_flight 2>&1 |
          grep -E "\"(description|flag_point)\"" | head -n 8
      done' 2>&1 | sed 's/^/  /'
  done
}

# run, slurm-run and exec need the head; without one, say so instead of Compose's silence.
need_head() {
  local head_id
  head_id=$(compose ps -q head 2>/dev/null) || head_id=
  [ -n "$head_id" ] && [ "$(docker inspect --format '{{.State.Running}}' "$head_id" 2>/dev/null)" = true ] ||
    die "no head of cluster '$project' is running: start the cluster with docker/cluster.sh up (after a failure: down, then up)"
}

run() {
  need_head
  compose exec -T head /opt/deltameta/docker/entrypoint.sh cluster-run "$@"
}

slurm_run() {
  need_head
  compose exec -T head /opt/deltameta/docker/entrypoint.sh cluster-slurm-run "$@"
}

cmd=${1:-}
[ $# -eq 0 ] || shift
case "$cmd" in
  up) up "$@" ;;
  run) run "$@" ;;
  slurm-run) slurm_run "$@" ;;
  exec) need_head; compose exec -T head "$@" ;;
  down) compose down -v --remove-orphans --timeout 20 >/dev/null 2>&1
        echo "cluster: removed $project" ;;
  *) die "usage: $0 up [--nodes N] [--out DIR] | run [SNAKEMAKE ARGS] | slurm-run [SNAKEMAKE ARGS] | exec CMD... | down" ;;
esac
