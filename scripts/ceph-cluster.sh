#!/usr/bin/env bash
# A throw-away single-node Ceph cluster for tests and the workflow: one monitor and one
# in-memory OSD on 127.0.0.1 (messenger v2), no systemd, no authentication, everything
# (config, data, logs, PIDs) in one directory. Ready in a few seconds.
#   scripts/ceph-cluster.sh start DIR [--port N] [--pool NAME]... [--memory-mb N] [--cephfs] [--cephx]
#   scripts/ceph-cluster.sh stop DIR
# --cephfs adds a CephFS: one MDS (ceph-mds in the foreground) and the file system
# "deltameta" on the pools deltameta-fs-metadata and deltameta-fs-data; `stop` stops the
# MDS first and removes its folder DIR/mds.
# --cephx turns authentication on (cephx, as a site's cluster has it): every key (mon.,
# client.admin with every capability, osd.0, mds.a) in DIR/keyring, which ceph.conf's
# [global] names; clients reach it only with that keyring.
#   scripts/ceph-cluster.sh osd-stop DIR [--kill]   the OSD only: SIGTERM (or SIGKILL)
#   scripts/ceph-cluster.sh osd-start DIR           the OSD again, once it is active
# `start` prints the lines to reach it (CEPH_CONF=..., the first pool) and writes them to
# DIR/env; each --pool is created (default one pool, deltameta).
# The in-memory OSD keeps its data across osd-stop/osd-start only if it saves it on a
# graceful stop, which Ceph's fast shutdown skips (osd_fast_shutdown=false:
# core/doc/storage.md).
set -euo pipefail

die() { echo "ceph-cluster: $*" >&2; exit 1; }

usage() {
  die "usage: $0 start DIR [--port N] [--pool NAME]... [--memory-mb N] [--cephfs] [--cephx] | stop DIR | osd-stop DIR [--kill] | osd-start DIR"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

port_taken() {
  python3 -c 'import socket,sys; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try: s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError: sys.exit(0)
sys.exit(1)' "$1"
}

# Runs a ceph CLI command against this cluster, never waiting more than 20 seconds.
cli() { timeout 25 ceph -c "$dir/ceph.conf" --connect-timeout 20 "$@"; }

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local deadline=$((SECONDS + $1)) what=$2
  shift 2
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || die "$what did not happen within the time limit (logs in $dir/log)"
    sleep 0.2
  done
}

state_of() {  # state_of PID: its state and start time ("S 4711"), nothing once it is gone
  local stat fields
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  read -r -a fields <<<"${stat##*) }"
  echo "${fields[0]} ${fields[19]}"
}

ours() {  # ours NAME PID: PID is this cluster's ceph-NAME (its command line names DIR/ceph.conf)
  local args
  args=$(tr '\0' ' ' <"/proc/$2/cmdline" 2>/dev/null) || return 1
  [[ "$args" == *"ceph-$1 "* && "$args" == *" $dir/ceph.conf "* ]]
}

running() {  # running PID START: the process that started at START still runs (a zombie has ended)
  local s
  s=$(state_of "$1")
  [ -n "$s" ] && [ "${s% *}" != Z ] && [ "${s#* }" = "$2" ]
}

stop_pid() {  # stop_pid NAME [SIGNAL]: signal (TERM) the daemon recorded in DIR/NAME.pid, wait for it
  # (30 s, then SIGKILL and 30 s more). A PID file whose process has ended, or whose PID now
  # belongs to another process (PIDs are reused), is removed without a signal. The process is
  # known by its start time, which a daemon that re-executes itself (the MDS's respawn) keeps.
  local f="$dir/$1.pid" pid started _
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if ours "$1" "$pid"; then
    started=$(state_of "$pid")
    started=${started#* }
    kill -"${2:-TERM}" "$pid" 2>/dev/null || true
    for _ in $(seq 300); do running "$pid" "$started" || break; sleep 0.1; done
    ! running "$pid" "$started" || kill -KILL "$pid" 2>/dev/null || true
    for _ in $(seq 300); do running "$pid" "$started" || break; sleep 0.1; done
    if running "$pid" "$started"; then
      echo "ceph-cluster: $1 (pid $pid) is still running 30 s after SIGKILL (state $(state_of "$pid" | cut -d' ' -f1)," \
        "waiting in $(cat "/proc/$pid/wchan" 2>/dev/null || echo '?')): its log is $dir/log" >&2
      return 1
    fi
  fi
  rm -f "$f"
}

# Starts the OSD of an existing cluster directory, in the background.
run_osd() {
  ceph-osd -c "$dir/ceph.conf" -i 0 -f >>"$dir/log/osd.0.stdout" 2>&1 &
  echo $! > "$dir/osd.pid"
}

mds_active() {
  cli mds stat | grep -q "=up:active"
}

# Adds the MDS and the file system deltameta on two new pools, and waits for it to be active.
start_cephfs() {
  local out
  out=$(cli osd pool create deltameta-fs-metadata 8 2>&1 && cli osd pool create deltameta-fs-data 8 2>&1 &&
        cli fs new deltameta deltameta-fs-metadata deltameta-fs-data 2>&1) ||
    die "making the file system deltameta failed: $(echo "$out" | tail -n 1)"
  mkdir -p "$dir/mds"
  ceph-mds -c "$dir/ceph.conf" -i a -f >>"$dir/log/mds.a.stdout" 2>&1 &
  echo $! > "$dir/mds.pid"
  wait_for 150 "the MDS becoming active" mds_active
  echo "CEPHFS=deltameta" >> "$dir/env"
}

osd_active() {
  timeout 25 ceph --admin-daemon "$dir/run/osd.0.asok" status 2>/dev/null | grep -q '"state": "active"'
}

start() {
  local port="" pools=() memory_mb=1024 cephfs=0 cephx=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --port) port=$2; shift 2 ;;
      --pool) pools+=("$2"); shift 2 ;;
      --memory-mb) memory_mb=$2; shift 2 ;;
      --cephfs) cephfs=1; shift ;;
      --cephx) cephx=1; shift ;;
      *) usage ;;
    esac
  done
  command -v ceph-mon >/dev/null || die "ceph-mon not found: run scripts/install-deps.sh"
  [ $cephfs = 0 ] || command -v ceph-mds >/dev/null || die "ceph-mds not found (--cephfs needs it): run scripts/install-deps.sh"
  [ ! -e "$dir/mon.pid" ] || die "$dir already holds a cluster: stop it first ($0 stop $dir)"
  # Clusters started at the same time (tests run side by side) must not pick the same free
  # port: the choice is made under a host-wide lock, held until the monitor listens.
  exec 9>/tmp/deltameta-ceph-ports.lock
  flock -w 120 9 || die "another cluster held /tmp/deltameta-ceph-ports.lock for 120 s"
  [ -n "$port" ] || port=$(free_port)
  # A second monitor on a taken port would silently talk to the other cluster.
  ! port_taken "$port" || die "port $port on 127.0.0.1 is in use: pick another with --port"
  mkdir -p "$dir/mon" "$dir/osd" "$dir/log" "$dir/run"
  local fsid
  fsid=$(python3 -c 'import uuid; print(uuid.uuid4())')
  cat > "$dir/ceph.conf" <<CONF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$port
ms bind ipv4 = true
ms bind ipv6 = false
public addr = 127.0.0.1
cluster addr = 127.0.0.1
$(grep -v '^#' "$(dirname "$0")/ceph-common.conf" | if [ $cephx = 1 ]; then sed 's/^\(auth .* required\) = none$/\1 = cephx/'; else cat; fi)
$([ $cephx = 0 ] || echo "keyring = $dir/keyring")
memstore device bytes = $((memory_mb * 1024 * 1024))
run dir = $dir/run
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
[mon.a]
mon data = $dir/mon
[osd.0]
osd data = $dir/osd
[mds.a]
mds data = $dir/mds
CONF
  monmaptool --create --clobber --fsid "$fsid" --addv a "[v2:127.0.0.1:$port]" "$dir/monmap" >/dev/null
  local keyring=()
  if [ $cephx = 1 ]; then
    ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
    ceph-authtool "$dir/keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' \
      --cap mds 'allow *' --cap mgr 'allow *' >/dev/null
    ceph-authtool "$dir/keyring" --gen-key -n osd.0 --cap mon 'allow profile osd' --cap osd 'allow *' >/dev/null
    ceph-authtool "$dir/keyring" --gen-key -n mds.a --cap mon 'allow profile mds' --cap osd 'allow *' \
      --cap mds 'allow' >/dev/null
    keyring=(--keyring "$dir/keyring")
  fi
  ceph-mon -c "$dir/ceph.conf" -i a --mkfs --monmap "$dir/monmap" "${keyring[@]}" >/dev/null 2>&1 ||
    die "ceph-mon --mkfs failed (see $dir/log/mon.a.log)"
  ceph-mon -c "$dir/ceph.conf" -i a -f >>"$dir/log/mon.a.stdout" 2>&1 9>&- &  # not holding the lock
  echo $! > "$dir/mon.pid"
  wait_for 90 "the monitor answering" cli mon stat
  exec 9>&-
  local uuid id
  uuid=$(python3 -c 'import uuid; print(uuid.uuid4())')
  id=$(cli osd new "$uuid")
  [ "$id" = 0 ] || die "expected OSD id 0, got '$id'"
  ceph-osd -c "$dir/ceph.conf" -i 0 --mkfs --osd-uuid "$uuid" >/dev/null 2>&1 ||
    die "ceph-osd --mkfs failed (see $dir/log/osd.0.log)"
  run_osd
  wait_for 150 "the OSD coming up" bash -c "timeout 25 ceph -c '$dir/ceph.conf' --connect-timeout 20 osd stat | grep -q '1 up'"
  [ ${#pools[@]} -gt 0 ] || pools=(deltameta)
  local pool
  for pool in "${pools[@]}"; do
    cli osd pool create "$pool" 8 >/dev/null 2>&1
    wait_for 150 "pool $pool accepting writes" bash -c \
      "echo ok | timeout 25 rados -c '$dir/ceph.conf' -p '$pool' put ceph-cluster-ready -"
  done
  printf 'CEPH_CONF=%s\nCEPH_POOL=%s\nCEPH_MON=127.0.0.1:%s\n' "$dir/ceph.conf" "${pools[0]}" "$port" > "$dir/env"
  [ $cephfs = 0 ] || start_cephfs
  cat "$dir/env"
}

[ $# -ge 2 ] || usage
cmd=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
shift 2
case "$cmd" in
  start)
    if ! (start "$@"); then
      stop_pid mds || true; stop_pid osd || true; stop_pid mon || true; rm -rf "$dir/mds"
      exit 1
    fi ;;
  stop)
    [ $# -eq 0 ] || usage
    # Each daemon is stopped even when one before it would not end; the exit status says so.
    stopped=0
    stop_pid mds || stopped=1  # clients' sessions end with it; it flushes its journal to the OSD
    stop_pid osd || stopped=1  # the OSD before the monitor, or it waits for a monitor that is gone
    stop_pid mon || stopped=1
    rm -rf "$dir/mds"
    exit $stopped ;;
  osd-stop)
    [ -f "$dir/osd.pid" ] || die "no OSD of $dir is running"
    case "${1:-}" in
      "") stop_pid osd ;;
      --kill) [ $# -eq 1 ] || usage; stop_pid osd KILL ;;
      *) usage ;;
    esac ;;
  osd-start)
    [ $# -eq 0 ] || usage
    [ -f "$dir/mon.pid" ] || die "no cluster in $dir: start one first ($0 start $dir)"
    [ ! -f "$dir/osd.pid" ] || die "the OSD of $dir is running: stop it first ($0 osd-stop $dir)"
    run_osd
    if ! (wait_for 150 "the OSD becoming active" osd_active); then stop_pid osd; exit 1; fi ;;
  *) usage ;;
esac
