"""The nodes of a run's Slurm allocation that Slurm no longer counts as up (used by
workflows/bin/slurm_run.py to name them when a run fails), each with its state, its address
and the name that address resolved back to when the job started: on the Docker cluster a
node's Slurm name is its container's id (its host name), the name Docker's name service
gives its address is the container's name, and a stopped container leaves that service."""
import subprocess

from mpijobs.launcher import host_name


def lost_nodes(nodes, addresses=None):
    """The nodes among `nodes` that Slurm reports down, failing or not responding, each named
    by node_label with `addresses` ({node: its NodeAddr})."""
    try:
        res = subprocess.run(["sinfo", "--noheader", "--Node", "--nodes", ",".join(nodes), "--format", "%N %T"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    lost = []
    for line in res.stdout.splitlines():
        name, _, state = line.strip().partition(" ")
        if state.endswith("*") or state.split("+")[0] in ("down", "drained", "draining", "fail", "failing"):
            lost.append(node_label(name, state, addresses))
    return sorted(set(lost))


def node_label(node, state, addresses=None):
    """"NODE (STATE; ADDRESS, NAME)": the node's address where Slurm has one other than the
    node's own name, and the name that address resolved back to when the job started
    (mpijobs.launcher.remember_host_names) where it did."""
    address = (addresses or {}).get(node)
    where = [address, host_name(address)] if address and address != node else []
    return f"{node} ({'; '.join([state, ', '.join(filter(None, where))] if where else [state])})"
