#!/usr/bin/env bash
# The image's entry point (under tini, which reaps exited daemons and ranks).
#   run [SNAKEMAKE ARGS]   the workflow on this container alone, into /out (mount a host
#                          folder there): results/ (the configuration's conclusions, figures
#                          and report.html in results/<name>/), owned by the owner of /out
#   node head|node         a node of the multi-node cluster (docker/compose.yaml; node.sh)
#   cluster-run [ARGS]     on the head node: the workflow's multi-node profile over every
#                          ready node (docker/cluster.sh run)
#   cluster-slurm-run [ARGS]  on the head node: the same through the cluster's Slurm, with
#                          the Slurm profile, every run one job on up to every node
#                          (docker/cluster.sh slurm-run)
#   anything else          run as given (e.g. bash)
# A --configfile given as a path inside the workflow (config/profiles/smoke.yaml) is found
# there; the image's own tools are always the ones used (core.build: installed).
set -euo pipefail
WORKFLOW=/opt/deltameta/workflow
export DELTAMETA_IMAGE_INFO=/opt/deltameta/image.json

die() { echo "deltameta: $*" >&2; exit 2; }

# Re-runs this script as the owner of /out when that is not root, so that what the
# workflow writes belongs to the user who mounted the folder.
as_owner_of_out() {
  local uid gid
  uid=$(stat -c %u /out) gid=$(stat -c %g /out)
  if [ "$(id -u)" -ne 0 ] || [ "$uid" -eq 0 ]; then return 0; fi
  getent group "$gid" >/dev/null || groupadd -g "$gid" deltameta
  getent passwd "$uid" >/dev/null || useradd -M -d /tmp/deltameta-home -u "$uid" -g "$gid" -s /bin/bash deltameta
  mkdir -p /tmp/deltameta-home && chown "$uid:$gid" /tmp/deltameta-home
  exec setpriv --reuid="$uid" --regid="$gid" --init-groups env HOME=/tmp/deltameta-home "$0" "$@"
}

run_workflow() {
  mountpoint -q /out && [ -w /out ] ||
    die "/out is not a writable folder mounted from the host: mount one, e.g. docker run -v \"\$PWD/out:/out\" ..."
  local args=() in_configfiles=0 configfiles=()
  for a in "$@"; do
    if [ "$a" = --configfile ] || [ "$a" = --configfiles ]; then in_configfiles=1; continue; fi
    if [ $in_configfiles = 1 ] && [ "${a#-}" = "$a" ]; then
      if [ ! -e "$a" ] && [ -e "$WORKFLOW/$a" ]; then a=$WORKFLOW/$a; fi
      [ -f "$a" ] || die "--configfile $a: no such file in the container (looked in $(pwd) and $WORKFLOW;" \
        "a file of the host must be in the folder mounted at /out: --configfile /out/NAME.yaml)"
      configfiles+=("$a"); continue
    fi
    in_configfiles=0
    args+=("$a")
  done
  configfiles+=(/opt/deltameta/docker/image-config.yaml)
  cd /out
  local out_file out
  out_file=$(mktemp)
  # The Snakefile writes the configuration's output folder (results/<name>) into this file.
  DELTAMETA_OUT_FILE=$out_file snakemake -s "$WORKFLOW/Snakefile" --cores all --configfile "${configfiles[@]}" \
    "${args[@]}"
  out=$(cat "$out_file") && rm -f "$out_file"
  snakemake -s "$WORKFLOW/Snakefile" --cores all --configfile "${configfiles[@]}" "${args[@]}" \
    --report "$out/report.html"
  echo "deltameta: results in $(pwd)/results (summary.csv, claims.md, report.html and figures/ in $(pwd)/$out)"
}

# Each node's container name beside its address in the head's /etc/hosts (lines this
# function wrote before are replaced), so that a failed job still names a node stopped
# before the job began: Docker's name service forgets a stopped container at once.
remember_node_names() {
  local kept addr name
  kept=$(grep -v ' # deltameta node$' /etc/hosts)
  printf '%s\n' "$kept" > /etc/hosts
  while read -r addr; do
    name=$(timeout 2 getent hosts "$addr" | awk '{print $2}')  # a name service that does not answer delays no run
    [ -z "$name" ] || echo "$addr $name # deltameta node" >> /etc/hosts
  done < /cluster/hostfile
}

# The multi-node profile over the nodes that are up (the head first), as root, since MPI's
# launcher logs into every node as root; what it writes is then given to the owner of /out.
cluster_run() {
  [ -s /cluster/ceph/ceph.conf ] || die "cluster-run is for the head node of docker/compose.yaml (no /cluster/ceph/ceph.conf)"
  local head node
  head=$(hostname)
  {
    cat "/cluster/nodes/$head"
    for node in /cluster/ready/*; do
      node=$(basename "$node")
      [ "$node" = "$head" ] || cat "/cluster/nodes/$node"
    done
  } > /cluster/hostfile
  remember_node_names
  out_owner=$(stat -c %u:%g /out)
  trap 'chown -R "$out_owner" /out/results /out/paper /out/.snakemake 2>/dev/null || true' EXIT
  run_workflow --configfile config/profiles/multi-node.yaml "$@"
}

# The multi-node profile submitted to the cluster's Slurm (docker/node.sh started it): each
# run one job asking for every node (slurm.nodes; a run of fewer ranks gets as many nodes
# as it has ranks), its ranks started by srun; no hostfile.
# Stores on /out, which every node mounts, as an HPC site's shared file system
# (--config storage=rados: in the cluster's Ceph instead). The designs only: the cephfs
# system needs storage: rados, and its run needs the MDS's host (the head), where a job of
# fewer nodes than the cluster's may not start (core/bench/runs.py reads the MDS's CPU
# from /proc).
cluster_slurm_run() {
  [ -s /cluster/slurm/slurm.conf ] ||
    die "cluster-slurm-run is for the head node of a cluster started by docker/cluster.sh up (no /cluster/slurm/slurm.conf)"
  local nodes
  nodes=$(sinfo -h -o %D -t idle,mixed,allocated,completing | awk '{n += $1} END {print n + 0}')
  [ "$nodes" -ge 2 ] || die "Slurm has $nodes node(s) up, the multi-node profile needs 2 (sinfo shows them)"
  printf 'storage: posix\nsystems: [indexfs, indexfs-bulk, deltafs]\nmpi: {mpiexec: mpiexec, hostfile: "", min_hosts: 2}\nslurm: {nodes: %s}\n' \
    "$nodes" > /cluster/slurm/workflow.yaml
  out_owner=$(stat -c %u:%g /out)
  trap 'chown -R "$out_owner" /out/results /out/paper /out/.snakemake 2>/dev/null || true' EXIT
  run_workflow --configfile config/profiles/multi-node.yaml /cluster/slurm/workflow.yaml "$@" \
    --workflow-profile "$WORKFLOW/config/profiles/slurm"
}

cmd=${1:-run}
[ $# -eq 0 ] || shift
case "$cmd" in
  run) as_owner_of_out run "$@"; run_workflow "$@" ;;
  node) exec /opt/deltameta/docker/node.sh "$@" ;;
  cluster-run) cluster_run "$@" ;;
  cluster-slurm-run) cluster_slurm_run "$@" ;;
  *) exec "$cmd" "$@" ;;
esac
