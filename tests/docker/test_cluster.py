"""The multi-node cluster (docker/compose.yaml, docker/cluster.sh): three node containers
with one Ceph cluster and MPI across them run the multi-node smoke profile with every job
on at least two hosts, and the original prototype's runs too (on RADOS, each rank ending
through our preload library); losing a node mid-run fails that run naming the host, and once the
node is back a rerun redoes only what failed; a pool that does not answer fails `up` with
what the monitor knows; tearing down leaves nothing behind; with no cluster up, run,
slurm-run and exec say in one line to start one."""
import glob
import json
import os
import re
import time

import pytest

from docker_helpers import ARCHIVE, ORIGINAL, REPO, docker_unavailable, run, three_node_cluster

SMOKE = ["--configfile", "config/profiles/multi-node-smoke.yaml"]


@pytest.fixture(scope="module")
def cluster(image):
    with three_node_cluster("deltameta-test", image) as cluster:
        yield cluster


def test_smoke_profile_spans_every_node(cluster):
    res = cluster("run", *SMOKE, timeout=1200)
    assert "results in /out/results" in res.stdout, res.stdout[-3000:] + res.stderr[-3000:]
    with open(os.path.join(cluster.out, "results", "multi-node-smoke", "validation.json")) as f:
        assert json.load(f)["ok"] is True
    docs = cluster.run_docs()
    hosts = set()
    for path, phases in docs.items():
        for d in phases:
            assert d["placement"]["hosts"] >= 2, (path, d["placement"])
            hosts |= set(d["placement"]["rank_hosts"])
        if "/runs/indexfs/" in path:  # servers on the head, clients on the other nodes
            head_ip = {a.rsplit(":", 1)[0] for a in phases[0]["server_addresses"]}
            assert len(head_ip) == 1
        if "/runs/cephfs/" in path:  # through the head's MDS, its CPU read where the run ran
            assert [(d["phase"], d["errors"]["total"]) for d in phases] == [("insert", 0), ("lstat", 0)], path
            assert all(d["servers_sampled"]["processes"] == 1 for d in phases), path
            assert phases[0]["cpu_s"]["servers"] > 0, path
    assert len(hosts) == 3
    assert len([p for p in docs if "/runs/cephfs/" in p]) == 2  # 2 repetitions
    with open(os.path.join(cluster.out, "results", "multi-node-smoke", "production.md")) as f:
        assert "CephFS" in f.read()
    with open(os.path.join(cluster.out, "results", "multi-node-smoke", "provenance.json")) as f:
        prov = json.load(f)
    assert prov["config"]["storage"] == "rados" and len(prov["placement"]) == len(docs)
    assert {os.stat(p).st_uid for p in glob.glob(os.path.join(cluster.out, "results", "**"), recursive=True)} == {1000}


def test_the_original_runs_across_the_nodes_on_rados(cluster):
    if not ORIGINAL:
        pytest.skip(f"the image holds no original prototype ({ARCHIVE} is not there)")
    res = cluster("run", *SMOKE, "--config", "implementations=[deltameta,original]", timeout=1200)
    assert "results in /out/results" in res.stdout, res.stdout[-3000:] + res.stderr[-3000:]
    docs = {p: d for p, d in cluster.run_docs().items() if "/runs/original/" in p}
    assert len(docs) == 10, sorted(docs)  # 2 repetitions x (indexfs, indexfs-bulk, deltafs write, compaction, read)
    for path, phases in docs.items():
        for d in phases:
            assert d["placement"]["hosts"] >= 2 and d["errors"]["total"] == 0, (path, d["placement"])
            assert d["storage"]["backend"] == "rados", path
    # Every rank held its node's /tmp/ceph.conf and ended through our preload library; the
    # placeholders are gone from every node.
    logs = glob.glob(os.path.join(cluster.out, "results", "logs", "original", "**", "*.log"), recursive=True)
    launched = [line for p in logs for line in open(p) if "mpiexec" in line and "/original/install/bin/" in line]
    assert launched and all("exec-held" in line and "libdeltameta_mpi_end.so" in line for line in launched)
    for node in cluster.containers():
        assert run("docker", "exec", node, "ls", "/tmp/ceph.conf", check=False).returncode != 0, node


def test_losing_a_node_fails_the_run_and_a_rerun_redoes_only_that(cluster):
    cluster("exec", "rm", "-rf", "/out/results", "/out/paper", "/out/.snakemake")
    bigger = SMOKE + ["--config", "files_per_rank=20000", "repetitions=1", "job_timeout_s=90"]
    proc = cluster.start("run", *bigger)
    victim = cluster.other_nodes()[0]
    try:
        # Once a second run has written its results (the runs take every core, one at a
        # time: the first has finished), lose a node.
        deadline = time.monotonic() + 600
        while len(cluster.run_docs()) < 2:
            if proc.poll() is not None or time.monotonic() > deadline:
                output = proc.communicate(timeout=60)[0] if proc.poll() is not None else "(still running)"
                pytest.fail(f"no two runs wrote their results:\n{output[-3000:]}\n{cluster.state()}")
            time.sleep(0.5)
        started = time.monotonic()
        run("docker", "stop", victim, timeout=120)
        output, _ = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    # What is left has finished: Snakemake removes the results of the jobs that failed (the
    # node may have gone as a job was writing them, or between two jobs).
    finished_before = {p: os.path.getmtime(p) for p in cluster.run_docs()}
    assert finished_before, output[-4000:]
    assert proc.returncode != 0, output[-4000:]
    assert time.monotonic() - started < 90 + 120, "the run did not fail within its job timeout"
    assert "after losing host" in output, output[-4000:]
    assert f"({victim}" in output, output[-4000:]  # the address, then the container's name

    run("docker", "start", victim)
    deadline = time.monotonic() + 180
    while cluster.ready_nodes() != 3:
        assert time.monotonic() < deadline, "the node did not come back"
        time.sleep(1)
    res = cluster("run", *bigger, timeout=1200)
    assert "results in /out/results" in res.stdout, res.stdout[-3000:] + res.stderr[-3000:]
    after = cluster.run_docs()
    assert all(os.path.getmtime(p) == t for p, t in finished_before.items()), "a finished run was redone"
    assert len(after) > len(finished_before)
    # The MDS waited for the lost node's OSD (node.sh): its file system is active, not damaged.
    stat = cluster("exec", "ceph", "-c", "/cluster/ceph/ceph.conf", "--connect-timeout", "15", "mds", "stat",
                   timeout=60).stdout
    assert "up:active" in stat and "damaged" not in stat, stat


def test_a_pool_that_does_not_answer_fails_up_with_what_the_monitor_knows(cluster):
    ceph = ["ceph", "-c", "/cluster/ceph/ceph.conf", "--connect-timeout", "15"]
    cluster("exec", *ceph, "osd", "pause", timeout=60)  # every client call now waits
    try:
        cluster.env["DELTAMETA_POOL_WAIT_S"] = "5"
        res = cluster("up", "--nodes", "3", "--out", cluster.out, check=False, timeout=300)
    finally:
        del cluster.env["DELTAMETA_POOL_WAIT_S"]
        cluster("exec", *ceph, "osd", "unpause", timeout=60)
    assert res.returncode == 2, res
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("cluster: the pool deltameta did not answer in every placement group within 5 s"), last
    assert "pauserd,pausewr" in res.stderr, res.stderr  # the monitor's health names the cause
    assert res.stderr.count(".osd.log:") == 3, res.stderr
    # each OSD's admin socket is there to ask
    assert len(re.findall(r"ceph-osd\.[0-9]+, requests in flight:", res.stderr)) == 3, res.stderr
    assert "osd.2 up" in res.stderr, res.stderr
    cluster("up", "--nodes", "3", "--out", cluster.out, timeout=300)  # answers again


@pytest.mark.parametrize("command", [["run"], ["slurm-run"], ["exec", "true"]])
def test_commands_without_a_cluster_say_to_start_one(command):
    why = docker_unavailable()
    if why:
        pytest.skip(why)
    res = run("bash", os.path.join(REPO, "docker", "cluster.sh"), *command, check=False, timeout=120,
              env=dict(os.environ, DELTAMETA_CLUSTER="deltameta-test-none"))
    assert res.returncode == 2, res
    assert res.stderr == ("cluster: no head of cluster 'deltameta-test-none' is running: start the cluster with "
                          "docker/cluster.sh up (after a failure: down, then up)\n"), res.stderr
