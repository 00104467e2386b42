"""The workflow through its Slurm profile on the multi-node Docker cluster (docker/node.sh
runs slurmctld on the head and a slurmd on every node; docker/cluster.sh slurm-run): the
multi-node smoke profile completes with one Slurm job per run, completed (the job
completion log, since there is no slurmdbd), its ranks on several nodes and every run's
JSON naming its job and nodes; a node that goes down during a run fails that run, naming
it and the lost node, leaves no job queued or running once the node is back, and a rerun
redoes only that run."""
import glob
import json
import os
import shutil
import subprocess
import tempfile
import time

import pytest

from conftest import DOCKER, run

PROJECT = "deltameta-slurm-test"
CLUSTER = os.path.join(DOCKER, "cluster.sh")
SMOKE = ["--configfile", "config/profiles/multi-node-smoke.yaml"]
RESULTS = {"phases.jsonl", "write.jsonl", "compact.jsonl", "read.jsonl"}  # the run rules' outputs


def cluster(*args, check=True, timeout=900):
    env = dict(os.environ, DELTAMETA_IMAGE=pytest.deltameta_slurm_image, DELTAMETA_CLUSTER=PROJECT)
    return run("bash", CLUSTER, *args, check=check, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def slurm_nodes(image):
    pytest.deltameta_slurm_image = image
    out = tempfile.mkdtemp(prefix="deltameta-slurm-cluster-", dir="/tmp")
    os.chown(out, 1000, 1000)
    cluster("down")
    try:
        cluster("up", "--nodes", "3", "--out", out, timeout=300)
        yield out
    finally:
        cluster("down", timeout=300)
        shutil.rmtree(out, ignore_errors=True)


def run_docs(out):
    docs = {}
    for path in glob.glob(os.path.join(out, "results", "runs", "**", "*.jsonl"), recursive=True):
        if os.path.basename(path) in RESULTS:
            with open(path) as f:
                docs[path] = [json.loads(line) for line in f if line.strip()]
    return docs


def queued_jobs():
    """(job id, state, comment) of every job the cluster's Slurm has pending or running."""
    res = cluster("exec", "squeue", "--noheader", "--format", "%i %T %k")
    return [tuple(line.split(None, 2)) for line in res.stdout.splitlines() if line.strip()]


def completed_jobs():
    """The job completion log (jobcomp/filetxt) as {job id: fields}."""
    jobs = {}
    for line in cluster("exec", "cat", "/cluster/slurm/jobcomp.log").stdout.splitlines():
        fields = dict(w.partition("=")[::2] for w in line.split() if "=" in w)
        jobs[fields["JobId"]] = fields
    return jobs


def test_smoke_profile_one_job_per_run_across_nodes(slurm_nodes):
    res = cluster("slurm-run", *SMOKE, timeout=1200)
    assert "results in /out/results" in res.stdout, res.stdout[-3000:] + res.stderr[-3000:]
    with open(os.path.join(slurm_nodes, "results", "multi-node-smoke", "validation.json")) as f:
        assert json.load(f)["ok"] is True
    docs, completed = run_docs(slurm_nodes), completed_jobs()
    assert len(docs) == 10  # 2 repetitions x (indexfs, indexfs-bulk, deltafs write, compaction, read)
    hosts, job_ids = set(), set()
    for path, phases in docs.items():
        slurm = {json.dumps(d["slurm"], sort_keys=True) for d in phases}
        assert len(slurm) == 1, path
        job = phases[0]["slurm"]
        assert completed[job["job_id"]]["JobState"] == "COMPLETED", (path, completed[job["job_id"]])
        job_ids.add(job["job_id"])
        for d in phases:
            assert d["placement"]["hosts"] >= 2, (path, d["placement"])
            assert set(d["placement"]["rank_hosts"]) <= set(job["nodes"]), (path, d["placement"], job)
            hosts |= set(d["placement"]["rank_hosts"])
        if "/indexfs" in path:  # servers on the job's first node, clients on the others
            assert len(job["nodes"]) == 3 and job["nodes"][0] not in phases[0]["placement"]["rank_hosts"]
    assert len(job_ids) == len(docs) and len(hosts) == 3
    with open(os.path.join(slurm_nodes, "results", "multi-node-smoke", "provenance.json")) as f:
        placement = json.load(f)["placement"]
    assert all("slurm" in phase for r in placement.values() for phase in r.values())
    assert queued_jobs() == []


def test_a_node_going_down_fails_its_run_and_a_rerun_redoes_it(slurm_nodes):
    cluster("exec", "rm", "-rf", "/out/results", "/out/.snakemake")
    two_runs = SMOKE + ["--config", "systems=[indexfs]", "files_per_rank=100000", "repetitions=2",
                        "job_timeout_s=120"]
    env = dict(os.environ, DELTAMETA_IMAGE=pytest.deltameta_slurm_image, DELTAMETA_CLUSTER=PROJECT)
    proc = subprocess.Popen(["bash", CLUSTER, "slurm-run", *two_runs], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)
    victim = sorted(n for n in run("docker", "ps", "--filter", f"label=com.docker.compose.project={PROJECT}",
                                   "--format", "{{.Names}}").stdout.split() if "node_" in n.replace("-", "_"))[0]
    try:
        # While a run's clients are running (a step of its job), stop a node of its allocation.
        deadline = time.monotonic() + 300
        while not any("deltameta_client" in line for line in
                      cluster("exec", "squeue", "--steps", "--noheader", "--format", "%j").stdout.splitlines()):
            assert proc.poll() is None and time.monotonic() < deadline, "no client step ever ran"
            time.sleep(0.3)
        run("docker", "stop", victim, timeout=120)
        # The job on the lost node ends; the other run waits for the node (it needs all three).
        deadline = time.monotonic() + 180
        while any(state == "RUNNING" for _, state, _ in queued_jobs()):
            assert time.monotonic() < deadline, "the job on the lost node did not end"
            time.sleep(1)
        run("docker", "start", victim)
        output, _ = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert "Error in rule indexfs" in output, output[-4000:]
    done = {p: os.path.getmtime(p) for p in run_docs(slurm_nodes)}
    runs = glob.glob(os.path.join(slurm_nodes, "results", "runs", "indexfs", "*", "*", "rep*"))
    failed = [p for p in runs if not os.path.exists(os.path.join(p, "phases.jsonl"))]
    assert len(done) == 1 and len(failed) == 1, (done, failed, output[-3000:])
    assert os.path.relpath(failed[0], slurm_nodes) in output, output[-4000:]
    # Why: Slurm's state for the job (NODE_FAIL), or, where the run's driver saw its step fail
    # first, its log names the node Slurm no longer counts as up.
    logs = glob.glob(os.path.join(slurm_nodes, "results", "logs", "indexfs", "*", "*", "*.log"))
    assert "NODE_FAIL" in output or any("after losing node" in open(p).read() for p in logs), output[-4000:]
    assert queued_jobs() == []

    res = cluster("slurm-run", *two_runs, timeout=1200)
    assert "results in /out/results" in res.stdout, res.stdout[-3000:] + res.stderr[-3000:]
    assert all(os.path.getmtime(p) == t for p, t in done.items()), "a run that had completed was redone"
    assert len(run_docs(slurm_nodes)) == 2
    assert queued_jobs() == []
