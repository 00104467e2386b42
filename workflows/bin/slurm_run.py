#!/usr/bin/env python3
"""Runs one run rule's command (core/bench/runs.py ...) with the launcher the rule was given
(its `mpi` resource):
  slurm_run.py LAUNCHER RUNS_COMMAND...
A launcher other than srun (mpiexec, the default) is simply passed on: RUNS_COMMAND
--mpiexec LAUNCHER replaces this process. With srun (the Slurm profile, config/README.md
"Slurm"), this process runs inside the run's Slurm job, on its first node: it reads the
job's allocated nodes, writes their addresses as the run's hostfile (so runs.py places
servers on the first node and their clients on the others, as on any multi-host hostfile,
and can probe a host that stops answering), makes every job
of the run a step of this allocation (workflows/bin/srun_mpiexec.py), and adds to each
phase document of the run's results what Slurm ran it as: {"slurm": {"job_id", "nodes",
"cluster", "partition"}} (placement.rank_hosts, from the core, has the host of every rank).
If the run fails, the allocation's nodes that Slurm no longer counts as up are named, with
their addresses and the names those had when the job started (a container's, on the Docker
cluster).
Before anything else, an attempt under Slurm waits until the run's last attempt, if a
stopped job's, has ended (slurm_attempt.py: its step could otherwise remove this attempt's
outputs as it ends).

Either way, an IndexFS run first removes the local stores (`svr`, `cli` in its --work
folder) that an attempt killed before its end left behind (a job that lost a node or ran
out of time): the servers refuse to open a store that exists, and the rule runs only when
its result is missing, so whatever is there is from a failed attempt."""
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys

from mpijobs.launcher import remember_host_names

from workflows.launch.command_line import option
from workflows.launch.slurm_attempt import wait_for_previous
from workflows.launch.slurm_nodes import lost_nodes

HERE = os.path.dirname(os.path.abspath(__file__))
SRUN_MPIEXEC = os.path.join(HERE, "srun_mpiexec.py")


def fail(message, code=1):
    print(f"slurm_run: {message}", file=sys.stderr, flush=True)
    sys.exit(code)


def slurm(*args):
    res = subprocess.run(list(args), capture_output=True, text=True, timeout=60)
    if res.returncode != 0:
        fail(f"{' '.join(args)} failed: {res.stderr.strip()} (is this node's Slurm client configured? "
             "/etc/slurm/slurm.conf)")
    return res.stdout


def job_info(job_id):
    """{"job_id", "nodes" (host names in allocation order), "cluster", "partition"} of a job."""
    fields = {}
    for word in slurm("scontrol", "show", "job", "--oneliner", job_id).split():
        key, _, value = word.partition("=")
        fields.setdefault(key, value)
    nodes = slurm("scontrol", "show", "hostnames", fields.get("NodeList", "")).split()
    if not nodes:
        fail(f"Slurm job {job_id} has no nodes (NodeList={fields.get('NodeList')!r})")
    return {"job_id": job_id, "nodes": nodes, "cluster": os.environ.get("SLURM_CLUSTER_NAME", ""),
            "partition": fields.get("Partition", "")}


def node_addresses(nodes):
    """{node name: its NodeAddr} (the name itself where Slurm has no other address)."""
    addresses = {}
    for line in slurm("scontrol", "show", "node", "--oneliner", ",".join(nodes)).splitlines():
        fields = dict(w.partition("=")[::2] for w in line.split() if "=" in w)
        if fields.get("NodeName"):
            addresses[fields["NodeName"]] = fields.get("NodeAddr") or fields["NodeName"]
    return {n: addresses.get(n, n) for n in nodes}


def annotate(path, info):
    """Adds the Slurm job to every phase document of the results file `path`."""
    with open(path) as f:
        docs = [json.loads(line) for line in f if line.strip()]
    with open(path + ".tmp", "w") as f:
        for d in docs:
            f.write(json.dumps(dict(d, slurm=info)) + "\n")
    os.replace(path + ".tmp", path)


def run_in_allocation(launcher, cmd, job_id, out, work):
    info = job_info(job_id)
    addresses = node_addresses(info["nodes"])
    # Their names now, while every node answers (a lost node's leaves Docker's name service).
    remember_host_names(list(addresses.values()))
    os.makedirs(work, exist_ok=True)
    hostfile = os.path.join(work, "slurm-hostfile")
    with open(hostfile, "w") as f:
        f.write("".join(addresses[node] + "\n" for node in info["nodes"]))
    env = dict(os.environ, DELTAMETA_SRUN_ARGS=" ".join(shlex.split(launcher)[1:]),
               DELTAMETA_SLURM_NODES=" ".join(f"{a}={n}" for n, a in addresses.items()))
    print(f"slurm_run: Slurm job {job_id} on {','.join(info['nodes'])}", file=sys.stderr, flush=True)
    proc = subprocess.Popen(cmd + ["--mpiexec", SRUN_MPIEXEC, "--hostfile", hostfile], env=env)

    def forward(signum, frame):  # runs.py stops its servers on SIGTERM; so does scancel's signal
        proc.send_signal(signum)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, forward)
    rc = proc.wait()
    if rc != 0:
        lost = lost_nodes(info["nodes"], addresses)
        cause = f" after losing node {', '.join(lost)}" if lost else ""
        fail(f"run failed in Slurm job {job_id} on {','.join(info['nodes'])}{cause} (exit code {rc})",
             rc if rc > 0 else 1)
    annotate(out, info)


def remove_stale_stores(cmd):
    run, work = next((a for a in cmd if a in ("indexfs", "indexfs-bulk")), None), option(cmd, "--work")
    if not run or not work:
        return
    for name in ("svr", "cli"):  # core/bench/runs.py's IndexFS store folders
        path = os.path.join(work, name)
        if os.path.isdir(path):
            print(f"slurm_run: removing {path}, left by an attempt that did not finish", file=sys.stderr, flush=True)
            shutil.rmtree(path)


def main():
    if len(sys.argv) < 3:
        fail("usage: slurm_run.py LAUNCHER RUNS_COMMAND...", 2)
    launcher, cmd = sys.argv[1], sys.argv[2:]
    words = shlex.split(launcher)
    if not words or os.path.basename(words[0]) != "srun":
        remove_stale_stores(cmd)
        os.execvp(cmd[0], cmd + ["--mpiexec", launcher])
    job_id, out, work = os.environ.get("SLURM_JOB_ID"), option(cmd, "--out"), option(cmd, "--work")
    if not job_id:
        fail("the launcher is srun but this is not a Slurm job (no SLURM_JOB_ID): use the Slurm profile "
             "(--workflow-profile config/profiles/slurm), or set resources mpi to mpiexec", 2)
    if not out or not work:
        fail("the run command has no --out or --work", 2)
    reason = wait_for_previous(work, job_id)
    if reason:
        fail(reason)
    remove_stale_stores(cmd)
    run_in_allocation(launcher, cmd, job_id, out, work)


if __name__ == "__main__":
    main()
