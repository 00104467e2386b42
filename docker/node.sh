#!/usr/bin/env bash
# Start-up of a node of the multi-node cluster (docker/compose.yaml). Every node shares the
# /cluster volume and /out. Steps, each a function a later role can extend:
#   every node   sshd with the cluster's key, its address in /cluster/nodes/HOSTNAME
#   head         first: the cluster's ssh key and Ceph monitor, /cluster/ceph/ceph.conf
#   every node   a Ceph OSD (in-memory store, saved when the node stops)
#   head         a Ceph MDS, standby until cluster.sh up makes the CephFS deltameta
#   head         Slurm's controller, once all DELTAMETA_NODES nodes have written their
#                address: /cluster/slurm/slurm.conf names every node (and the munge key)
#   every node   munge and a slurmd (the head's too), then ready: /cluster/ready/HOSTNAME
# Slurm is left out, saying so, when DELTAMETA_NODES is not set (docker/cluster.sh sets it).
# The key is made when the cluster starts, never baked into the image. On SIGTERM (docker
# stop) the node stops its daemons cleanly, MDS before OSD before monitor.
#   node.sh head|node
set -euo pipefail
role=${1:-node}
[ "$role" = head ] || [ "$role" = node ] || { echo "node.sh: role must be head or node, not '$role'" >&2; exit 2; }
C=/cluster
host=$(hostname)
addr=$(hostname -I | awk '{print $1}')
state=/var/lib/deltameta   # this container's own state (kept across docker stop/start)
mkdir -p "$state" "$C/nodes" "$C/ready" "$C/log"
log() { echo "node.sh[$host]: $*" | tee -a "$C/log/$host.log" >&2; }
wait_for_file() {  # wait_for_file PATH SECONDS
  local deadline=$((SECONDS + $2))
  until [ -s "$1" ]; do
    [ $SECONDS -lt $deadline ] || { log "gave up waiting for $1"; exit 1; }
    sleep 0.2
  done
}

pids=()
stop_all() {
  log "stopping"
  rm -f "$C/ready/$host"
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill -TERM "${pids[i]}" 2>/dev/null || true; wait "${pids[i]}" 2>/dev/null || true; done
  exit 0
}
trap stop_all TERM INT

start_ssh() {
  if [ "$role" = head ] && [ ! -s "$C/ssh/id_ed25519" ]; then
    mkdir -p "$C/ssh" && chmod 700 "$C/ssh"
    ssh-keygen -q -t ed25519 -N "" -C "deltameta-cluster" -f "$C/ssh/id_ed25519"
  fi
  wait_for_file "$C/ssh/id_ed25519.pub" 60
  ssh-keygen -A >/dev/null
  mkdir -p /root/.ssh /run/sshd && chmod 700 /root/.ssh
  cp "$C/ssh/id_ed25519.pub" /root/.ssh/authorized_keys
  cat > /root/.ssh/config <<CONF
Host *
  IdentityFile $C/ssh/id_ed25519
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  ConnectTimeout 10
  ServerAliveInterval 5
  ServerAliveCountMax 3
CONF
  /usr/sbin/sshd -D -e -o PermitRootLogin=prohibit-password -o PasswordAuthentication=no \
    -o SetEnv=DELTAMETA_NODE=1 >>"$C/log/$host.sshd.log" 2>&1 &
  pids+=($!)
  echo "$addr" > "$C/nodes/$host"
}

start_ceph_monitor() {
  local dir=$C/ceph
  mkdir -p "$dir" "$state/mon"
  if [ ! -s "$state/mon/fsid" ]; then
    local fsid
    fsid=$(python3 -c 'import uuid; print(uuid.uuid4())')
    rm -f "$dir/ceph.conf"
    write_ceph_conf "$fsid" "$dir/ceph.conf.new"
    monmaptool --create --clobber --fsid "$fsid" --addv "$host" "[v2:$addr:3300]" "$state/monmap" >/dev/null
    ceph-mon -c "$dir/ceph.conf.new" -i "$host" --mkfs --monmap "$state/monmap" --mon-data "$state/mon/data" >/dev/null
    echo "$fsid" > "$state/mon/fsid"
    mv "$dir/ceph.conf.new" "$dir/ceph.conf"
  fi
  ceph-mon -c "$dir/ceph.conf" -i "$host" -f --mon-data "$state/mon/data" --public-addr "$addr" \
    >>"$C/log/$host.mon.log" 2>&1 &
  pids+=($!)
  local deadline=$((SECONDS + 120))
  until timeout 25 ceph -c "$dir/ceph.conf" --connect-timeout 20 mon stat >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { log "the Ceph monitor does not answer (see $C/log/$host.mon.log)"; exit 1; }
    sleep 0.5
  done
}

write_ceph_conf() {  # write_ceph_conf FSID PATH
  cat > "$2" <<CONF
[global]
fsid = $1
mon host = v2:$addr:3300
ms bind ipv6 = false
$(grep -v '^#' /opt/deltameta/workflow/scripts/ceph-common.conf)
memstore device bytes = $((${DELTAMETA_OSD_MEMORY_MB:-1024} * 1024 * 1024))
# A stopping OSD unmounts its store, which saves the in-memory objects to its data folder:
# a node that is stopped and started again comes back with its data.
osd fast shutdown = false
log file = /var/log/ceph/\$cluster-\$name.log
CONF
}

start_ceph_osd() {
  wait_for_file "$C/ceph/ceph.conf" 120
  mkdir -p /var/run/ceph  # its admin socket: what its requests wait for (cluster.sh's report)
  local conf=$C/ceph/ceph.conf id
  if [ -s "$state/osd/whoami" ] && [ "$(cat "$state/osd/fsid.cluster" 2>/dev/null)" = "$(awk '$1 == "fsid" {print $3}' "$conf")" ]; then
    id=$(cat "$state/osd/whoami")
  else
    rm -rf "$state/osd" && mkdir -p "$state/osd/data"
    local uuid
    uuid=$(python3 -c 'import uuid; print(uuid.uuid4())')
    id=$(timeout 60 ceph -c "$conf" --connect-timeout 50 osd new "$uuid")
    ceph-osd -c "$conf" -i "$id" --mkfs --osd-uuid "$uuid" --osd-data "$state/osd/data" >/dev/null 2>&1
    echo "$id" > "$state/osd/whoami"
    awk '$1 == "fsid" {print $3}' "$conf" > "$state/osd/fsid.cluster"
  fi
  ceph-osd -c "$conf" -i "$id" -f --osd-data "$state/osd/data" --public-addr "$addr" --cluster-addr "$addr" \
    >>"$C/log/$host.osd.log" 2>&1 &
  pids+=($!)
  local deadline=$((SECONDS + 120))
  until timeout 25 ceph -c "$conf" --connect-timeout 20 osd dump 2>/dev/null | grep -q "^osd.$id up"; do
    [ $SECONDS -lt $deadline ] || { log "osd.$id is not up (see $C/log/$host.osd.log)"; exit 1; }
    sleep 0.5
  done
}

# The head's CephFS metadata server, standby until `docker/cluster.sh up` makes the file
# system deltameta on its two pools (the cephfs system's and MD-Workbench's baseline; a
# head started again keeps it). Its journal and tables live in the pools, so it needs no
# state of its own beyond its data folder.
start_ceph_mds() {
  mkdir -p "$state/mds"
  # Named "head": an MDS name may not start with a digit, as a container's host name may.
  # It waits for its OSDs however long a node is gone (no op timeout, unlike the clients'
  # 30 s in ceph-common.conf): a journal write that timed out while a node was lost made
  # it mark its rank damaged, and the file system stayed down after the node came back.
  ceph-mds -c "$C/ceph/ceph.conf" -i head -f --mds-data "$state/mds" --public-addr "$addr" \
    --rados-osd-op-timeout 0 >>"$C/log/$host.mds.log" 2>&1 &
  pids+=($!)
  sleep 2
  kill -0 "$!" 2>/dev/null ||
    { log "the Ceph MDS exited at start: $(grep . "$C/log/$host.mds.log" | tail -n 1)"; exit 1; }
}

slurm_wanted() { [ -n "${DELTAMETA_NODES:-}" ]; }

start_munge() {  # the head makes the cluster's key; every node runs munged with it
  local key=$C/slurm/munge.key
  if [ "$role" = head ] && [ ! -s "$key" ]; then
    mkdir -p "$C/slurm" && chmod 700 "$C/slurm"
    head -c 1024 /dev/urandom > "$key.new" && chmod 400 "$key.new" && mv "$key.new" "$key"
  fi
  wait_for_file "$key" 120
  mkdir -p "$state/munge" /run/munge && chmod 755 "$state/munge" /run/munge
  cp "$key" "$state/munge/munge.key" && chmod 400 "$state/munge/munge.key"
  munged --force --foreground --key-file "$state/munge/munge.key" --socket /run/munge/munge.socket.2 \
    --pid-file "$state/munge/munged.pid" --seed-file "$state/munge/seed" >>"$C/log/$host.munge.log" 2>&1 &
  pids+=($!)
  until [ -S /run/munge/munge.socket.2 ]; do
    kill -0 "${pids[-1]}" 2>/dev/null || { log "munged exited (see $C/log/$host.munge.log)"; exit 1; }
    sleep 0.1
  done
}

write_slurm_conf() {  # the head, once every node has written its address: one line per node
  local nodes=$DELTAMETA_NODES deadline=$((SECONDS + 180))
  until [ "$(ls "$C/nodes" | wc -l)" -ge "$nodes" ]; do
    [ $SECONDS -lt $deadline ] || { log "only $(ls "$C/nodes" | wc -l) of $nodes nodes wrote their address"; exit 1; }
    sleep 0.2
  done
  local cpus memory f
  cpus=$(nproc) memory=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
  {
    cat <<CONF
# Written by docker/node.sh on the head from the cluster's node list (/cluster/nodes).
$(grep -v '^#' /opt/deltameta/workflow/scripts/slurm-common.conf)
SlurmctldHost=$host($addr)
StateSaveLocation=/var/lib/deltameta/slurmctld
SlurmdSpoolDir=/var/lib/deltameta/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$C/log/slurmctld.log
SlurmdLogFile=$C/log/slurmd-%n.log
JobCompLoc=$C/slurm/jobcomp.log
SlurmdTimeout=10
CONF
    # The head first: IndexFS servers go to a job's first node, and jobs are given nodes in
    # this order.
    for f in "$C/nodes/$host" $(ls "$C"/nodes/* | grep -v "/$host\$"); do
      echo "NodeName=$(basename "$f") NodeAddr=$(cat "$f") CPUs=$cpus RealMemory=$memory State=UNKNOWN"
    done
    echo "PartitionName=cluster Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
  } > "$C/slurm/slurm.conf.new"
  mv "$C/slurm/slurm.conf.new" "$C/slurm/slurm.conf"
}

# Stops this node with `what`, and the end of the controller's logs (the head's: what it
# printed, what it logged) in this node's log, which a failed `cluster.sh up` shows.
controller_said() {
  log "$1 (see $C/log/slurmctld.log); the ends of its logs:"
  tail -n 15 "$C"/log/*.slurmctld.out "$C/log/slurmctld.log" 2>&1 | sed 's/^/  /' \
    | tee -a "$C/log/$host.log" >&2
  exit 1
}

start_slurm() {
  local ctld="" code
  slurm_wanted || { log "DELTAMETA_NODES not set: no Slurm on this cluster (docker/cluster.sh up sets it)"; return 0; }
  start_munge
  if [ "$role" = head ]; then
    rm -f "$C/slurm/slurm.conf"
    write_slurm_conf
    mkdir -p "$state/slurmctld"
    ln -sfn "$C/slurm/slurm.conf" /etc/slurm/slurm.conf
    slurmctld -D -i >>"$C/log/$host.slurmctld.out" 2>&1 &
    ctld=$!
    pids+=($ctld)
  fi
  wait_for_file "$C/slurm/slurm.conf" 240
  ln -sfn "$C/slurm/slurm.conf" /etc/slurm/slurm.conf
  mkdir -p "$state/slurmd"
  local deadline=$((SECONDS + 120))
  until timeout 10 scontrol ping >/dev/null 2>&1; do
    if [ -n "$ctld" ] && ! kill -0 "$ctld" 2>/dev/null; then
      wait "$ctld" && code=0 || code=$?
      controller_said "Slurm's controller exited (code $code) before it answered"
    fi
    [ $SECONDS -lt $deadline ] || controller_said "Slurm's controller does not answer within 120 s"
    sleep 0.5
  done
  # A node started again may have a new address: tell the controller before registering.
  timeout 30 scontrol update NodeName="$host" NodeAddr="$addr" >/dev/null 2>&1 || true
  slurmd -D -N "$host" >>"$C/log/$host.slurmd.out" 2>&1 &
  pids+=($!)
  deadline=$((SECONDS + 120))
  until sinfo -h -n "$host" -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)$'; do
    [ $SECONDS -lt $deadline ] || { log "slurmd did not register (see $C/log/slurmd-$host.log)"; exit 1; }
    sleep 0.5
  done
}

step() { log "$1 (${SECONDS} s after start)"; }
step "sshd"; start_ssh
[ "$role" = node ] || { step "Ceph monitor"; start_ceph_monitor; }
step "Ceph OSD"; start_ceph_osd
[ "$role" = node ] || { step "Ceph MDS"; start_ceph_mds; }
step "Slurm"; start_slurm
touch "$C/ready/$host"
log "ready ($role, $addr)"
while :; do sleep 3600 & wait $! || true; done
