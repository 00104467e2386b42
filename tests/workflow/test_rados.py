"""storage: rados end to end: the RADOS profile (smoke scale) on the workflow's throw-away
Ceph cluster passes the smoke run's checks; the cluster is stopped after success, error
and Ctrl-C, and by its watchdog when snakemake dies; the markers of its stores go with it,
so that they are written again, and a dry run removes none; an unreachable cluster fails
with the core's message. No daemon or job may outlive a run."""
import csv
import glob
import json
import os
import re
import signal
import socket
import subprocess
import time

import pytest
import yaml
from store_markers import MARKER

from workflow_helpers import (BUILT, NO_MDWB, RADOS, SMOKE, Workflow, ceph_daemons, deltameta_processes,
                              interrupt_during_client)
from test_reruns import planned_jobs
from test_smoke_run import (PHASES, check_figures, check_results_table_and_report, check_second_run_is_a_no_op,
                            check_summary, check_validation_and_provenance)

from workflows.launch.rados_stores import remove_markers
from workflows.registry import MDWB_OPS

ROOT = "rados://deltameta/deltameta-results/"
# The failure cases use the tools as built (no build step): they are about the cluster.


@pytest.fixture
def rados_workflow_in(tmp_path):
    return Workflow(tmp_path, profile=RADOS)


def test_rados_profile_is_the_smoke_scale_on_rados():
    with open(SMOKE) as f:
        smoke = yaml.safe_load(f)
    # ... with CephFS's MDS too: a system beside the designs, and an MD-Workbench interface.
    mdworkbench = dict(smoke["mdworkbench"], interfaces=["posix", "indexfs", "deltafs", "cephfs"])
    with open(RADOS) as f:
        assert yaml.safe_load(f) == dict(smoke, storage="rados", name="rados", mdworkbench=mdworkbench,
                                         systems=["indexfs", "indexfs-bulk", "deltafs", "cephfs"])


def test_rados_smoke_run_passes_the_smoke_checks(rados_smoke):
    check_summary(rados_smoke, "rados", dict(PHASES, cephfs={"insert", "lstat"}))
    p = check_validation_and_provenance(rados_smoke, "rados", 28 + 8)  # CephFS: 2 phases x 2 client counts x 2 reps
    assert p["storage"]["root"] == ROOT.rstrip("/") and p["storage"]["cluster"].startswith("throw-away")
    assert p["storage"]["ceph_version"].startswith("ceph version")
    check_figures(rados_smoke)
    check_results_table_and_report(rados_smoke)
    check_second_run_is_a_no_op(rados_smoke)


def test_mdworkbench_runs_on_cephfs_beside_the_other_interfaces(rados_smoke):
    with open(rados_smoke.out("mdworkbench", "validation.json")) as f:
        report = json.load(f)
    assert report["ok"] and report["runs_checked"] == 4
    with open(rados_smoke.out("mdworkbench", "summary.csv"), newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["interface"] == "cephfs"]
    assert {(r["phase"], r["op"]) for r in rows} == {("precreate", "create"), ("cleanup", "delete")} | {
        ("benchmark", op) for op in MDWB_OPS}
    assert all(int(r["errors"]) == 0 and float(r["lat_median_us"]) > 0 for r in rows)
    with open(rados_smoke.out("mdworkbench", "table.md")) as f:
        assert "| CephFS MDS (production) | benchmark | create |" in f.read()
    [run] = glob.glob(rados_smoke.path("results", "runs", "mdworkbench", "rados", "cephfs", "*", "rep1",
                                       "phases.jsonl"))
    with open(run) as f:
        docs = [json.loads(line) for line in f]
    assert [d["phase"] for d in docs] == ["precreate", "benchmark", "cleanup"]
    assert {d["cephfs_root"] for d in docs} == {"/deltameta-mdworkbench" + os.path.dirname(run)}
    with open(rados_smoke.out("provenance.json")) as f:
        assert "one MDS and the CephFS deltameta" in json.load(f)["storage"]["cluster"]


def test_production_table_holds_cephfs_against_indexfs_and_deltafs(rados_smoke):
    with open(rados_smoke.out("production.md")) as f:
        rows = [line.split(" | ") for line in f if line.startswith(("| insert", "| lstat"))]
    # each phase at 1 and 2 client ranks, against IndexFS (2 servers) and DeltaFS (insert:
    # no servers; lstat: 2 readers)
    assert sorted((r[0].lstrip("| "), r[1], r[4], r[5]) for r in rows) == sorted(
        (phase, x, design, servers) for phase in ("insert", "lstat") for x in ("1", "2")
        for design, servers in (("IndexFS", "2"), ("DeltaFS", "0" if phase == "insert" else "2")))
    assert all(r[7].rstrip(" |\n").endswith("x") and float(r[7].rstrip(" |\nx")) > 0 for r in rows)


def test_every_store_was_in_rados_and_the_cluster_is_gone(rados_smoke):
    assert "Starting a throw-away Ceph cluster" in rados_smoke.stderr
    assert "Stopped the throw-away Ceph cluster" in rados_smoke.stderr
    assert rados_smoke.daemons_after_run == []
    assert os.path.exists(rados_smoke.path("results", "ceph", "log", "mon.a.log"))
    stores = []
    for path in glob.glob(rados_smoke.path("results", "runs", "**", "*.jsonl"), recursive=True):
        if os.path.basename(path) in ("phases.jsonl", "write.jsonl", "compact.jsonl", "read.jsonl"):
            with open(path) as f:
                for line in f:
                    d = json.loads(line)
                    assert d["storage"]["backend"] == "rados", path
                    for role, uri in d["storage"]["stores"].items():
                        if role == "posix":  # MD-Workbench's posix interface: a local directory by definition
                            assert uri.startswith(str(rados_smoke.workdir)), (path, uri)
                            continue
                        stores.append((os.path.relpath(os.path.dirname(path), rados_smoke.workdir), role, uri))
    assert stores and all(uri.startswith(ROOT + "runs/") for _, _, uri in stores)
    # Runs never share a store: each location belongs to one run (a DeltaFS repetition's phases share theirs).
    owners = {}
    for run, _, uri in stores:
        owners.setdefault(uri, set()).add(re.sub(r"/r\d+$", "", run))
    assert all(len(runs) == 1 for runs in owners.values()), owners
    # indexfs: servers; bulk: servers, tables; deltafs: origin, compacted; MD-Workbench: indexfs servers, deltafs
    # origin and compacted
    assert len(owners) == 4 * 1 + 4 * 2 + 4 * 2 + 3
    # The markers of the DeltaFS stores were temporary: nothing claims data of the stopped cluster.
    assert not glob.glob(rados_smoke.path("results", "runs", "deltafs", "rados", "*", "*", "origin"))
    assert not glob.glob(rados_smoke.path("results", "runs", "deltafs", "rados", "*", "*", "r2", "compacted"))


def write_marker(origin, conf):
    """A DeltaFS origin marker naming a store of the cluster of `conf` (core/bench/store_markers.py)."""
    os.makedirs(origin)
    with open(os.path.join(origin, MARKER), "w") as f:
        json.dump({"uri": ROOT + "gone", "ceph_conf": conf, "fsid": "00000000-0000-0000-0000-000000000000"}, f)


def test_only_the_markers_of_other_clusters_are_removed(tmp_path, monkeypatch, capsys):
    """remove_markers (workflows/launch/rados_stores.py) through core/bench/store_markers.py,
    in a folder of results as the workflow leaves them."""
    monkeypatch.chdir(tmp_path)
    run = os.path.join("results", "runs", "deltafs", "rados", "c1-n500", "rep1")
    write_marker(os.path.join(run, "origin"), "/kept/ceph.conf")
    write_marker(os.path.join(run, "r2", "compacted"), "/gone/ceph.conf")
    remove_markers(keep="/kept/ceph.conf")
    assert os.path.isfile(os.path.join(run, "origin", MARKER))
    assert not os.path.exists(os.path.join(run, "r2", "compacted"))
    assert f"RADOS store of {os.path.join(run, 'r2', 'compacted')} is gone with the cluster" in capsys.readouterr().err
    remove_markers()
    assert not os.path.exists(os.path.join(run, "origin"))


def test_markers_go_with_their_cluster_and_a_dry_run_removes_nothing(rados_workflow_in):
    wf = rados_workflow_in
    small = {**NO_MDWB, "systems": ["deltafs"], "client_ranks": [1], "repetitions": 1, **BUILT}
    # --until ends the invocation after the write phase: no later phase used its store.
    res = wf.run("--until", "deltafs_write", overrides=small)
    assert res.returncode == 0, res.stderr[-3000:]
    origin = os.path.join("results", "runs", "deltafs", "rados", "c1-n500", "rep1", "origin")
    assert f"RADOS store of {origin} is gone with the cluster that held it" in res.stderr
    assert "Stopped the throw-away Ceph cluster" in res.stderr and not os.path.exists(wf.path(origin))
    jobs = planned_jobs(wf, small)
    assert jobs["deltafs_write"] == jobs["deltafs_compact"] == jobs["deltafs_read"] == 1
    # Nothing is removed (or started) while the workflow is only parsed: a marker left
    # behind (e.g. by a host that went down with its cluster) stays through a dry run.
    write_marker(wf.path(origin), wf.path("results", "ceph", "ceph.conf"))
    res = wf.run("--dry-run", overrides=small)
    assert res.returncode == 0 and os.path.exists(wf.path(origin, MARKER))
    assert "is gone with the cluster" not in res.stderr and ceph_daemons(wf.workdir) == []


def test_watchdog_stops_the_cluster_and_removes_its_markers_when_snakemake_dies(rados_workflow_in):
    wf = rados_workflow_in
    proc = subprocess.Popen(wf.command(overrides={**NO_MDWB, "systems": ["indexfs"], "client_ranks": [2],
                                                  "repetitions": 1, "files_per_rank": 400000, **BUILT}),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, process_group=0)
    try:
        deadline = time.monotonic() + 120
        while not any("deltameta_client" in args for _, args in deltameta_processes(wf.workdir)):
            assert proc.poll() is None and time.monotonic() < deadline, "the client job never started"
            time.sleep(0.2)
        assert len(ceph_daemons(wf.workdir)) == 2
        origin = wf.path("results", "runs", "deltafs", "rados", "c1-n500", "rep1", "origin")
        write_marker(origin, wf.path("results", "ceph", "ceph.conf"))
        os.killpg(proc.pid, signal.SIGKILL)  # snakemake and its jobs die without a word; the watchdog is left
        proc.wait(timeout=30)
        deadline = time.monotonic() + 120
        while deltameta_processes(wf.workdir) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert deltameta_processes(wf.workdir) == [] and not os.path.exists(origin)
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.fixture
def refused_port():
    """A TCP port of 127.0.0.1 that refuses connections while the test runs: bound, never
    listening (a port merely found free may be given meanwhile to a server that answers)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


def test_unreachable_cluster_fails_with_the_core_message(workflow_in, refused_port):
    conf = workflow_in.path("nowhere.conf")
    with open(conf, "w") as f:
        f.write(f"[global]\nmon host = v2:127.0.0.1:{refused_port}\nauth client required = none\n")
    start = time.monotonic()
    res = workflow_in.run(overrides={**NO_MDWB, "storage": "rados", "systems": ["indexfs"], "client_ranks": [1],
                                     "repetitions": 1, "rados": {"conf": conf}, **BUILT},
                          env={"DELTAMETA_RADOS_TIMEOUT": "3"})
    assert res.returncode != 0, res.stdout[-2000:] + res.stderr[-2000:]
    message = f"cannot reach the Ceph cluster of {conf} within 3 s"
    with open(workflow_in.path("results", "logs", "indexfs", "rados", "c1-s2-n500", "rep1.log")) as f:
        assert message in f.read()
    assert message in res.stderr
    assert time.monotonic() - start < 120
    assert not os.path.exists(workflow_in.path("results", "ceph"))  # an existing cluster: none started
    assert deltameta_processes(workflow_in.workdir) == []


def test_failing_run_stops_the_cluster(rados_workflow_in):
    wf = rados_workflow_in
    # l0_hard_limit below l0_soft_limit: the servers refuse to start.
    res = wf.run(overrides={**NO_MDWB, "systems": ["indexfs"], "client_ranks": [1], "repetitions": 1,
                            "store_settings": {"DELTAFS_Db_l0_hard_limit": 2}, **BUILT})
    assert res.returncode != 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert "servers exited with code" in res.stderr
    assert "Starting a throw-away Ceph cluster" in res.stderr
    assert "Stopped the throw-away Ceph cluster" in res.stderr
    assert ceph_daemons(wf.workdir) == [] and deltameta_processes(wf.workdir) == []


def test_ctrl_c_stops_jobs_and_the_cluster(rados_workflow_in):
    wf = rados_workflow_in

    def cluster_is_up():  # the monitor, the OSD and the MDS of MD-Workbench's cephfs interface
        assert len(ceph_daemons(wf.workdir)) == 3

    # Ctrl-C in a terminal: SIGINT to snakemake's whole process group (its jobs too); the
    # cluster's daemons are processes of the run, so none may be left either.
    interrupt_during_client(wf, {"systems": ["indexfs"], "client_ranks": [2], "repetitions": 1,
                                 "files_per_rank": 400000, **BUILT}, whole_group=True, while_running=cluster_is_up)


def test_bad_rados_settings_are_refused_before_anything_runs(rados_workflow_in):
    res = rados_workflow_in.run("--dry-run", overrides={"rados": {"pool": "no/slashes"}})
    assert res.returncode != 0 and "no/slashes" in res.stdout + res.stderr
    missing = rados_workflow_in.path("missing.conf")
    res = rados_workflow_in.run("--dry-run", overrides={"rados": {"conf": missing}})
    assert res.returncode != 0 and f"rados.conf: {missing} is not a file" in res.stdout + res.stderr
