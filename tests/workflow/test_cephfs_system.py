"""The cephfs system, CephFS's MDS as a production baseline beside the designs: a small run
of the RADOS profile (its throw-away cluster with an MDS) with systems [cephfs, indexfs], 1
and 2 client ranks x 500 files, one repetition, no MD-Workbench: CephFS's rows in
summary.csv, the results table (with the note on its CPU), the figures' series, the
"Against a production service" table (its ratios recomputed from summary.csv), left out of
the claims, the storage floor and the projection, and no daemon left; and the refusal
without storage: rados."""
import csv
import glob
import json
import os
import statistics

import pytest

from workflow_helpers import BUILT, NO_MDWB, RADOS, Workflow, ceph_daemons, deltameta_processes

from workflows.figures.paper import series_in
from workflows.registry import SYSTEMS
from workflows.results import production
from workflows.results.numbers import fmt
from workflows.results.summary import load

RANKS, N = (1, 2), 500
SMALL = dict(BUILT, **NO_MDWB, systems=["cephfs", "indexfs"], client_ranks=list(RANKS), repetitions=1)


@pytest.fixture(scope="module")
def cephfs_run(tmp_path_factory):
    wf = Workflow(tmp_path_factory.mktemp("cephfs-system"), profile=RADOS)
    res = wf.run(overrides=SMALL, timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    wf.daemons_after_run = ceph_daemons(wf.workdir)
    return wf


def rows_of(wf, system):
    with open(wf.out("summary.csv"), newline="") as f:
        return [r for r in csv.DictReader(f) if r["system"] == system]


def test_cephfs_rows_in_summary_and_validation(cephfs_run):
    rows = rows_of(cephfs_run, "cephfs")
    assert {(r["phase"], int(r["client_ranks"])) for r in rows} == {(p, x) for p in ("insert", "lstat") for x in RANKS}
    for r in rows:
        assert (r["implementation"], r["storage"], r["servers"], r["errors"]) == ("deltameta", "rados", "0", "0")
        assert int(r["ops"]) == int(r["expected_ops"]) == int(r["client_ranks"]) * N
        assert float(r["throughput_mops"]) > 0 and r["store_kind"] == "rados"
        # The MDS's CPU, sampled from /proc, is the servers'. An insert phase gives it 20-30 ms
        # of work here; an lstat phase of 500 names lasts 10-20 ms in all, about one of
        # /proc's 10-ms ticks, so its MDS CPU may read 0 (seen beside two CPU hogs).
        cpu = float(r["cpu_servers_s"])
        assert cpu > 0 if r["phase"] == "insert" else cpu >= 0, r
        assert float(r["cpu_own_share"]) > 0, r
    with open(cephfs_run.out("validation.json")) as f:
        v = json.load(f)
    assert v["ok"] and v["phases_checked"] == 8
    for path in glob.glob(cephfs_run.path("results", "runs", "cephfs", "rados", "c*-n500", "rep1", "phases.jsonl")):
        with open(path) as f:
            docs = [json.loads(line) for line in f]
        assert {d["cephfs_dir"].rsplit("/", 1)[0] for d in docs} == {"/deltameta-runs" + os.path.dirname(path)}
    with open(cephfs_run.out("provenance.json")) as f:
        assert "one MDS and the CephFS deltameta" in json.load(f)["storage"]["cluster"]


def test_cephfs_in_the_results_table_and_the_figures(cephfs_run):
    with open(cephfs_run.out("results-table.md")) as f:
        table = f.read()
    for phase in ("insert", "lstat"):
        for x in RANKS:
            assert f"| CephFS MDS (production) | {phase} | {x} | 0 | {N} | 1 |" in table
    assert table.rstrip().endswith(SYSTEMS["cephfs"].cpu_note())
    assert ("cephfs", "deltameta", "CephFS MDS (production)") in series_in(load(cephfs_run.out("summary.csv")))
    for name in ("insert_throughput", "lstat_throughput", "end_to_end_time", "latency_quantiles", "cpu_per_mop",
                 "scale_throughput"):
        with open(cephfs_run.out("figures", name + ".png"), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", name
    with open(cephfs_run.out("figures", "scale_throughput.csv"), newline="") as f:
        assert {r["phase"] for r in csv.DictReader(f) if r["system"] == "cephfs"} == {"insert", "lstat"}


def test_production_table_states_the_measured_ratios(cephfs_run):
    summary = load(cephfs_run.out("summary.csv"))
    with open(cephfs_run.out("production.md")) as f:
        text = f.read()
    assert text.startswith("# Against a production service")
    assert "the paper makes no claim about CephFS" in text
    lines = [line for line in text.splitlines() if line.startswith(("| insert", "| lstat"))]
    assert len(lines) == 4  # 2 phases x 2 client counts, against IndexFS (2 servers)
    for phase in ("insert", "lstat"):
        for x in RANKS:
            ceph, theirs = (statistics.median(r["throughput_mops"] for r in summary
                                              if (r["system"], r["phase"], r["client_ranks"]) == (system, phase, x))
                            for system in ("cephfs", "indexfs"))
            assert (f"| {phase} | {x} | {N} | {ceph:.4f} | IndexFS | 2 | {theirs:.4f} | {fmt(ceph / theirs)}x |"
                    in lines)


def test_a_ratio_far_below_one_keeps_its_digits():
    # CephFS's creates against DeltaFS's writes: two hundred times fewer, not "0.00".
    text = production.table([("insert", 1, 10000, 0.0024, "deltafs", 0, 0.5784, 0.0024 / 0.5784)], "summary.csv")
    assert "| insert | 1 | 10000 | 0.0024 | DeltaFS | 0 | 0.5784 | 0.0041x |" in text


def test_cephfs_enters_no_claim_floor_or_projection(cephfs_run):
    with open(cephfs_run.out("claims.json")) as f:
        assert "cephfs" not in f.read()
    with open(cephfs_run.out("floor.csv"), newline="") as f:
        assert {r["system"] for r in csv.DictReader(f)} == {"indexfs"}
    with open(cephfs_run.out("projection-validation.csv"), newline="") as f:
        assert {r["system"] for r in csv.DictReader(f)} == {"indexfs"}


def test_nothing_of_the_run_is_left(cephfs_run):
    assert cephfs_run.daemons_after_run == []
    assert deltameta_processes(cephfs_run.workdir) == []
    assert not os.path.exists(cephfs_run.path("results", "ceph", "mds"))


def test_cephfs_system_needs_storage_rados(workflow_in):
    res = workflow_in.run("--dry-run", overrides={"systems": ["indexfs", "cephfs"]})
    assert res.returncode != 0
    assert ("systems: cephfs needs storage: rados (its MDS runs in that Ceph cluster): use "
            "config/profiles/rados.yaml, or leave cephfs out") in res.stdout + res.stderr
