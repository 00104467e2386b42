"""The workflow through its Slurm profile on the multi-node Docker cluster (docker/node.sh
runs slurmctld on the head and a slurmd on every node; docker/cluster.sh slurm-run): the
multi-node smoke profile completes with one Slurm job per run, completed (the job
completion log, since there is no slurmdbd), its ranks on several nodes and every run's
JSON naming its job and nodes, the original prototype's too (every rank ending through our
preload library); a node that goes down during a run fails that run, naming
it and the lost node (by its container's name too), leaves no job queued or running once the node is back, and a rerun
redoes only that run."""
import glob
import json
import os
import time

import pytest

from docker_helpers import ARCHIVE, ORIGINAL, run, three_node_cluster

SMOKE = ["--configfile", "config/profiles/multi-node-smoke.yaml"]


@pytest.fixture(scope="module")
def cluster(image):
    with three_node_cluster("deltameta-slurm-test", image) as cluster:
        yield cluster


# Runs in the head until a job step of the client is running.
CLIENT_STEP_WATCH = "until squeue --steps --noheader --format %j | grep -q deltameta_client; do sleep 0.1; done"


def queued_jobs(cluster):
    """(job id, state, comment) of every job the cluster's Slurm has pending or running."""
    res = cluster("exec", "squeue", "--noheader", "--format", "%i %T %k")
    return [tuple(line.split(None, 2)) for line in res.stdout.splitlines() if line.strip()]


def completed_jobs(cluster):
    """The job completion log (jobcomp/filetxt) as {job id: fields}."""
    jobs = {}
    for line in cluster("exec", "cat", "/cluster/slurm/jobcomp.log").stdout.splitlines():
        fields = dict(w.partition("=")[::2] for w in line.split() if "=" in w)
        jobs[fields["JobId"]] = fields
    return jobs


def test_smoke_profile_one_job_per_run_across_nodes(cluster):
    res = cluster("slurm-run", *SMOKE, timeout=1200)
    assert "results in /out/results" in res.stdout, res.stdout[-3000:] + res.stderr[-3000:]
    assert "was never awaited" not in res.stdout + res.stderr  # Snakemake's noise, silenced by the Snakefile
    with open(os.path.join(cluster.out, "results", "multi-node-smoke", "validation.json")) as f:
        assert json.load(f)["ok"] is True
    docs, completed = cluster.run_docs(), completed_jobs(cluster)
    assert len(docs) == 10  # 2 repetitions x (indexfs, indexfs-bulk, deltafs write, compaction, read): no cephfs
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
        if "/runs/indexfs/" in path:  # servers on the job's first node, clients on the others
            assert len(job["nodes"]) == 3 and job["nodes"][0] not in phases[0]["placement"]["rank_hosts"]
    assert len(job_ids) == len(docs) and len(hosts) == 3
    with open(os.path.join(cluster.out, "results", "multi-node-smoke", "provenance.json")) as f:
        placement = json.load(f)["placement"]
    assert all("slurm" in phase for r in placement.values() for phase in r.values())
    assert queued_jobs(cluster) == []


def test_the_original_runs_on_rados_as_steps_across_nodes_ending_through_our_preload(cluster):
    if not ORIGINAL:
        pytest.skip(f"the image holds no original prototype ({ARCHIVE} is not there)")
    res = cluster("slurm-run", *SMOKE, "--config", "implementations=[deltameta,original]", "systems=[indexfs,deltafs]",
                  "repetitions=1", "storage=rados", timeout=1200)
    assert "results in /out/results" in res.stdout, res.stdout[-3000:] + res.stderr[-3000:]
    docs = {p: d for p, d in cluster.run_docs().items() if "/runs/original/" in p}
    assert len(docs) == 4, sorted(docs)  # indexfs, deltafs write, compaction, read
    for path, phases in docs.items():
        for d in phases:
            assert d["placement"]["hosts"] >= 2 and d["errors"]["total"] == 0, (path, d["placement"])
            assert "slurm" in d, path
            assert all(uri.startswith("rados://test/") for uri in d["storage"]["stores"].values()), d["storage"]
    # A Slurm job of several nodes spans hosts as a hostfile does: every rank of the original
    # ends through our preload library (its own MPI_Finalize can hang across hosts), and
    # starts through original_rados.py exec-held, which holds its node's /tmp/ceph.conf.
    logs = glob.glob(os.path.join(cluster.out, "results", "logs", "original", "**", "*.log"), recursive=True)
    launched = [line for p in logs for line in open(p) if "mpiexec" in line and "/original/install/bin/" in line]
    assert launched and all("libdeltameta_mpi_end.so" in line for line in launched), launched[:3]
    assert all("original_rados.py exec-held " in line for line in launched), launched[:3]
    # Once each run was done, one step a node removed the placeholder no rank held any longer.
    for node in cluster.containers():
        left = run("docker", "exec", node, "ls", "/tmp/ceph.conf", check=False)
        assert left.returncode != 0, f"{node} still has the original's /tmp/ceph.conf: {left.stdout}"
    assert queued_jobs(cluster) == []


def test_a_node_going_down_fails_its_run_and_a_rerun_redoes_it(cluster):
    cluster("exec", "rm", "-rf", "/out/results", "/out/.snakemake")
    # 250,000 files a rank keep a client step running while a node is stopped; a job may take
    # 600 s (the profile's 120 s failed the rerun on CI's busy machine, load 10, 2026-11-28).
    two_runs = SMOKE + ["--config", "systems=[indexfs]", "files_per_rank=250000", "repetitions=2",
                        "job_timeout_s=600"]
    proc = cluster.start("slurm-run", *two_runs)
    victim = cluster.other_nodes()[0]
    watch = None
    try:
        # While a run's clients are running (a step of its job), stop a node of its allocation.
        # Watched from inside the head, squeue every 0.1 s: one `cluster.sh exec` per look took
        # seconds on a busy machine, longer than a client step, and the workflow once ended
        # unwatched.
        watch = cluster.start("exec", "timeout", "300", "sh", "-c", CLIENT_STEP_WATCH)
        while watch.poll() is None:
            assert proc.poll() is None, \
                f"the workflow ended before a client step was seen:\n{proc.stdout.read()[-3000:]}"
            time.sleep(0.1)
        assert watch.returncode == 0, f"no client step within 300 s:\n{watch.stdout.read()[-2000:]}"
        run("docker", "stop", victim, timeout=120)
        # The job on the lost node ends; the other run waits for the node (it needs all three).
        deadline = time.monotonic() + 180
        while any(state == "RUNNING" for _, state, _ in queued_jobs(cluster)):
            assert time.monotonic() < deadline, "the job on the lost node did not end"
            time.sleep(1)
        run("docker", "start", victim)
        output, _ = proc.communicate(timeout=600)
    finally:
        for p in (proc, watch):
            if p is not None and p.poll() is None:
                p.kill()
    assert proc.returncode != 0, output[-4000:]
    assert "Error in rule indexfs" in output, output[-4000:]
    done = {p: os.path.getmtime(p) for p in cluster.run_docs()}
    runs = glob.glob(os.path.join(cluster.out, "results", "runs", "indexfs", "*", "*", "rep*"))
    failed = [p for p in runs if not os.path.exists(os.path.join(p, "phases.jsonl"))]
    assert len(done) == 1 and len(failed) == 1, (done, failed, output[-3000:])
    assert os.path.relpath(failed[0], cluster.out) in output, output[-4000:]
    # Why: Slurm's state for the job (NODE_FAIL), or, where the run's driver saw its step fail
    # first, its log names the node Slurm no longer counts as up: its container id, then its
    # address and container name.
    logs = glob.glob(os.path.join(cluster.out, "results", "logs", "indexfs", "*", "*", "*.log"))
    lost = [line for p in logs for line in open(p) if "after losing node" in line]
    assert "NODE_FAIL" in output or lost, output[-4000:]
    assert all(f", {victim}" in line for line in lost), lost
    assert queued_jobs(cluster) == []

    res = cluster("slurm-run", *two_runs, timeout=1200)
    assert "results in /out/results" in res.stdout, res.stdout[-3000:] + res.stderr[-3000:]
    assert all(os.path.getmtime(p) == t for p, t in done.items()), "a run that had completed was redone"
    assert len(cluster.run_docs()) == 2
    assert queued_jobs(cluster) == []
