"""The multi-node cluster (docker/compose.yaml, docker/cluster.sh): three node containers
with one Ceph cluster and MPI across them run the multi-node smoke profile with every job
on at least two hosts; losing a node mid-run fails that run naming the host, and once the
node is back a rerun redoes only what failed; tearing down leaves nothing behind."""
import glob
import json
import os
import shutil
import subprocess
import tempfile
import time

import pytest

from conftest import DOCKER, run

PROJECT = "deltameta-test"
CLUSTER = os.path.join(DOCKER, "cluster.sh")
SMOKE = ["--configfile", "config/profiles/multi-node-smoke.yaml"]


def cluster(*args, check=True, timeout=900):
    env = dict(os.environ, DELTAMETA_IMAGE=pytest.deltameta_image, DELTAMETA_CLUSTER=PROJECT)
    return run("bash", CLUSTER, *args, check=check, timeout=timeout, env=env)


def project_objects():
    """Containers, networks and volumes of the test's Compose project."""
    label = f"label=com.docker.compose.project={PROJECT}"
    found = []
    for kind in (["ps", "-a"], ["network", "ls"], ["volume", "ls"]):
        found += run("docker", *kind, "-q", "--filter", label).stdout.split()
    return found


@pytest.fixture(scope="module")
def nodes(image):
    pytest.deltameta_image = image
    out = tempfile.mkdtemp(prefix="deltameta-cluster-", dir="/tmp")
    os.chown(out, 1000, 1000)
    cluster("down")
    try:
        cluster("up", "--nodes", "3", "--out", out, timeout=300)
        yield out
    finally:
        cluster("down", timeout=300)
        shutil.rmtree(out, ignore_errors=True)
    assert project_objects() == []


def node_containers():
    return sorted(run("docker", "ps", "--filter", f"label=com.docker.compose.project={PROJECT}",
                      "--format", "{{.Names}}").stdout.split())


RESULTS = {"phases.jsonl", "write.jsonl", "compact.jsonl", "read.jsonl"}  # the run rules' outputs


def run_docs(out):
    docs = {}
    for path in glob.glob(os.path.join(out, "results", "runs", "**", "*.jsonl"), recursive=True):
        if os.path.basename(path) not in RESULTS:
            continue
        with open(path) as f:
            docs[path] = [json.loads(line) for line in f if line.strip()]
    return docs


def test_smoke_profile_spans_every_node(nodes):
    res = cluster("run", *SMOKE, timeout=1200)
    assert "results in /out/results" in res.stdout, res.stdout[-3000:] + res.stderr[-3000:]
    with open(os.path.join(nodes, "results", "multi-node-smoke", "validation.json")) as f:
        assert json.load(f)["ok"] is True
    docs = run_docs(nodes)
    hosts = set()
    for path, phases in docs.items():
        for d in phases:
            assert d["placement"]["hosts"] >= 2, (path, d["placement"])
            hosts |= set(d["placement"]["rank_hosts"])
        if "/indexfs" in path:  # servers on the head, clients on the other nodes
            head_ip = {a.rsplit(":", 1)[0] for a in phases[0]["server_addresses"]}
            assert len(head_ip) == 1
    assert len(hosts) == 3
    with open(os.path.join(nodes, "results", "multi-node-smoke", "provenance.json")) as f:
        prov = json.load(f)
    assert prov["config"]["storage"] == "rados" and len(prov["placement"]) == len(docs)
    assert {os.stat(p).st_uid for p in glob.glob(os.path.join(nodes, "results", "**"), recursive=True)} == {1000}


def test_losing_a_node_fails_the_run_and_a_rerun_redoes_only_that(nodes):
    cluster("exec", "rm", "-rf", "/out/results", "/out/paper", "/out/.snakemake")
    bigger = SMOKE + ["--config", "files_per_rank=20000", "repetitions=1", "job_timeout_s=90"]
    env = dict(os.environ, DELTAMETA_IMAGE=pytest.deltameta_image, DELTAMETA_CLUSTER=PROJECT)
    proc = subprocess.Popen(["bash", CLUSTER, "run", *bigger], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env)
    victim = [n for n in node_containers() if "node_" in n.replace("-", "_")][0]
    try:
        # Once the first run has finished, lose a node during the next.
        deadline = time.monotonic() + 600
        while not run_docs(nodes):
            assert proc.poll() is None and time.monotonic() < deadline, "no run finished"
            time.sleep(0.5)
        finished_before = {p: os.path.getmtime(p) for p in run_docs(nodes)}
        started = time.monotonic()
        run("docker", "stop", victim, timeout=120)
        output, _ = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert time.monotonic() - started < 90 + 120, "the run did not fail within its job timeout"
    assert "after losing host" in output, output[-4000:]

    run("docker", "start", victim)
    deadline = time.monotonic() + 180
    while cluster("exec", "sh", "-c", "ls /cluster/ready | wc -l").stdout.strip() != "3":
        assert time.monotonic() < deadline, "the node did not come back"
        time.sleep(1)
    res = cluster("run", *bigger, timeout=1200)
    assert "results in /out/results" in res.stdout, res.stdout[-3000:] + res.stderr[-3000:]
    after = run_docs(nodes)
    assert all(os.path.getmtime(p) == t for p, t in finished_before.items()), "a finished run was redone"
    assert len(after) > len(finished_before)
