"""Rule provenance: what produced these results (configuration, git
revision, tool and library versions, storage, host, the image when run in the deltameta
image, the host of every rank of every phase and, under Slurm, the job that ran it, and
the pre-flight's findings on the machine) in results/provenance.json; with the original
prototype's runs, what it was built from (its version, commit, checksum, source, licence)."""
import json
import os
import platform
import subprocess
import sys
from importlib import metadata

from workflows.environment.phase import environment_columns
from workflows.results.runs import result_file


def git(repo, *args):
    res = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True)
    return res.stdout.strip() if res.returncode == 0 else "unknown"


def main(sm):
    with open(sm.input.tools) as f:
        tools = json.load(f)
    packages = {p: metadata.version(p) for p in ("snakemake", "matplotlib") if _installed(p)}
    image = container_image()
    doc = {
        "config": dict(sm.params.config),
        "git_revision": image["core_commit"] if image else git(sm.params.repo, "rev-parse", "HEAD"),
        # Changes git does not have (modified or untracked files) in the clone the workflow
        # ran from, or, in the image, in the clone the image was built from.
        "git_dirty": image.get("tree_dirty") if image else bool(git(sm.params.repo, "status", "--porcelain")),
        "image": image,
        "tools": tools,
        "original": original(sm.input.original),
        "storage": storage(sm.params.storage),
        "python": sys.version.split()[0],
        "python_packages": packages,
        "host": {"hostname": platform.node(), "kernel": platform.release(), "machine": platform.machine()},
        "placement": placement([*sm.input.runs, *sm.input.mdworkbench]),
        "environment": environment(sm.input.runs),
        "preflight": preflight(sm.params.preflight),
        "note": "every phase result in results/runs/ also carries its binary's build and host info",
    }
    with open(sm.output[0], "w") as f:
        json.dump(doc, f, indent=1, default=str)
    with open(sm.log[0], "w") as log:
        log.write("ok\n")


def original(paths):
    """rule build_original's record (results/original/tools.json), or None when the original
    did not run."""
    if not paths:
        return None
    with open(paths[0]) as f:
        return json.load(f)


def container_image():
    """What the deltameta image says of itself (docker/build-core.sh), when run in it."""
    path = os.environ.get("DELTAMETA_IMAGE_INFO")
    if not path:
        return None
    with open(path) as f:
        return json.load(f)


def placement(run_files):
    """{run result file (MD-Workbench's too): {phase: host of every rank, and the servers'
    addresses}}; under the Slurm profile also the run's Slurm job: {"job_id", "nodes",
    "cluster", "partition"}."""
    out = {}
    for path in run_files:
        with open(path) as f:
            for line in f:
                if line.strip():
                    d = json.loads(line)
                    where = d.get("placement") or {}
                    out.setdefault(path, {})[d["phase"]] = dict(
                        {"rank_hosts": where.get("rank_hosts", []), "server_addresses": d.get("server_addresses", [])},
                        **({"slurm": d["slurm"]} if d.get("slurm") else {}))
    return out


def environment(run_files):
    """{run result file: {phase: its environment (summary.csv's environment columns)}}."""
    out = {}
    for path in run_files:
        servers = result_file(path)[0]["servers"]
        with open(path) as f:
            for line in f:
                if line.strip():
                    d = json.loads(line)
                    out.setdefault(path, {})[d["phase"]] = environment_columns(d, servers)
    return out


def preflight(path):
    """The pre-flight's findings (workflows/environment/preflight.py) of the invocation that
    writes provenance.json (which need not be the one that made every run), or None when it
    did not run (snakemake --no-hooks)."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def storage(info):
    """Where the stores were; for RADOS also the Ceph release installed here."""
    info = dict(info)
    if info["backend"] == "rados":
        try:
            res = subprocess.run(["ceph", "--version"], capture_output=True, text=True, timeout=60)
            info["ceph_version"] = res.stdout.strip() if res.returncode == 0 else "unknown"
        except (OSError, subprocess.TimeoutExpired):
            info["ceph_version"] = "unknown"
    return info


def _installed(name):
    try:
        metadata.version(name)
        return True
    except metadata.PackageNotFoundError:
        return False
