"""MD-Workbench in the workflow (workflows/rules/mdworkbench.smk): the smoke run validates,
tabulates and draws its runs on every interface; validation (mdworkbench/runs.py) passes a
run whose counts follow from its parameters and fails one where a deleted object still
answered, a read returned wrong bytes, a count is off, or DeltaFS claims a delete; with a
stonewall (-w, -W) the counts follow the positions each rank ran, and positions that break
its rules (more than I, none, unequal under wear-out, fewer than I without it) fail."""
import argparse
import copy
import csv
import glob
import json
import os
import re

import pytest
import runs

from workflows.mdworkbench.runs import SERVED, VERIFICATION, coordinates, expected, problems, read
from workflows.mdworkbench.summary import posix_note
from workflows.registry import MDWB_OPS, MDWORKBENCH

COORDS = dict(backend="posix", ranks=2, servers=2, dsets=2, precreate=10, objects=5, size=3901, iterations=2,
              offset=1, stonewall=0, wearout=0, rep=1)


def recorded(interface, **coords):
    """What core/bench/runs.py records of a run at COORDS (with `coords`) on `interface` in each
    of its documents."""
    at = dict(COORDS, **coords)
    asked = argparse.Namespace(run="mdworkbench", interface=interface, ranks=at["ranks"], servers=at["servers"],
                               data_sets=at["dsets"], precreate=at["precreate"], objects=at["objects"],
                               object_size=at["size"], iterations=at["iterations"], offset=at["offset"],
                               stonewall=at["stonewall"], wear_out=bool(at["wearout"]), repetition=at["rep"])
    return {"coordinates": runs.coordinates(asked, "deltameta"), "storage": {"backend": at["backend"]}}


def documents(interface, positions=None, **coords):
    """The phase documents a correct run at COORDS (with `coords`) on `interface` writes; its
    benchmark ran `positions` (per iteration, per rank; default I everywhere)."""
    positions = positions or [[COORDS["objects"]] * COORDS["ranks"]] * COORDS["iterations"]
    docs = {}
    where = dict(COORDS, interface=interface, **coords)
    for phase, (objects, ops) in expected(where, {"benchmark": {"positions_run": positions}}).items():
        if ops is None:
            docs[phase] = {"phase": phase, "ops": objects, "errors": {"total": 0}, **recorded(interface, **coords)}
            continue
        total = sum(ops.values())
        latency = dict(min=1.0, q1=2.0, median=3.0, q3=4.0, q90=5.0, q99=6.0, max=7.0)
        docs[phase] = {
            "phase": phase, "interface": interface, "ranks": COORDS["ranks"], "objects": objects, "ops": total,
            "elapsed_s": 0.5, "op_rate": total / 0.5, "obj_rate": objects / 0.5,
            "ops_by_type": {op: {"count": n, "errors": 0, "latency_us": latency} for op, n in ops.items()},
            "verification": dict({k: 0 for k in VERIFICATION}, expected_ops=total, total=0),
            **recorded(interface, **coords),
        }
        if phase == "benchmark":
            docs[phase]["positions_run"] = positions
        if phase == "benchmark" and interface == "deltafs":
            docs[phase]["not_served"] = ["create", "delete"]
    return docs


@pytest.mark.parametrize("interface", sorted(SERVED))
def test_a_correct_run_passes(interface):
    assert problems(documents(interface)) == []


def with_count(docs, phase, key, value):
    broken = copy.deepcopy(docs)
    v = broken[phase]["verification"]
    v[key], v["total"] = value, v["total"] + value
    return broken


@pytest.mark.parametrize("interface", ["posix", "indexfs"])
def test_a_deleted_object_that_still_answers_fails(interface):
    found = problems(with_count(documents(interface), "cleanup", "deleted_still_found", 1))
    assert found == [f"MD-Workbench {interface} repetition 1 cleanup: 1 deleted still found"]


@pytest.mark.parametrize("interface", sorted(SERVED))
def test_a_read_returning_wrong_bytes_fails(interface):
    found = problems(with_count(documents(interface), "benchmark", "wrong_bytes", 3))
    assert found == [f"MD-Workbench {interface} repetition 1 benchmark: 3 wrong bytes"]


def test_wrong_counts_fail():
    docs = documents("indexfs")
    docs["benchmark"]["ops_by_type"]["read"]["count"] -= 1
    docs["benchmark"]["ops"] -= 1
    found = problems(docs)
    assert len(found) == 2 and "benchmark: op counts" in found[0] and "'read': 39" in found[0]
    assert found[1] == "MD-Workbench indexfs repetition 1 benchmark: 159 ops, expected 160"
    docs = documents("posix")
    docs["precreate"]["objects"] = 39
    assert problems(docs) == ["MD-Workbench posix repetition 1 precreate: 39 objects, expected 40"]


def test_op_errors_a_missing_phase_and_a_served_delete_on_deltafs_fail():
    docs = documents("posix")
    docs["benchmark"]["ops_by_type"]["stat"]["errors"] = 2
    del docs["cleanup"]
    found = problems(docs)
    assert "MD-Workbench posix repetition 1 benchmark: 2 stat errors" in found
    assert "MD-Workbench posix repetition 1: no cleanup phase" in found
    docs = documents("deltafs")
    docs["benchmark"]["not_served"] = ["create"]
    assert problems(docs) == [
        "MD-Workbench deltafs repetition 1 benchmark: not_served ['create'], expected ['create', 'delete']"]


@pytest.mark.parametrize("interface", sorted(SERVED))
def test_a_stonewall_run_counts_what_its_ranks_ran(interface):
    without = [[2, 5], [3, 1]]  # each rank stopped on its own
    docs = documents(interface, without, stonewall=1)
    assert docs["benchmark"]["objects"] == COORDS["dsets"] * 11
    assert problems(docs) == []
    worn = [[3, 3], [4, 4]]
    assert problems(documents(interface, worn, stonewall=1, wearout=1)) == []


def test_a_stonewall_run_breaking_its_rules_fails():
    run = "MD-Workbench posix repetition 1 benchmark"
    # Unequal positions under wear-out; more than I; counts that do not follow the positions.
    worn = documents("posix", [[3, 2], [4, 4]], stonewall=1, wearout=1)
    assert problems(worn) == [f"{run}: iteration 1 ran [3, 2] positions with wear-out, expected the same on every rank"]
    over = documents("posix", [[6, 5], [5, 5]], stonewall=1)
    assert problems(over) == [f"{run}: iteration 1 ran [6, 5] positions, expected 1 to 5 each"]
    docs = documents("posix", [[2, 5], [3, 1]], stonewall=1)
    docs["benchmark"]["positions_run"] = [[2, 5], [3, 2]]
    assert f"{run}: 22 objects, expected 24" in problems(docs)
    # Without a stonewall every rank runs I positions in every iteration.
    short = documents("posix", [[5, 5], [5, 4]])
    assert f"{run}: iteration 2 ran [5, 4] positions without a stonewall, expected 5 each" in problems(short)


def test_a_tool_from_before_the_stonewall_passes_without_one_and_fails_with_one():
    """A core from before the stonewall (0.4.0 and older) records no positions_run: without
    a stonewall it ran every position (its counts checked as usual); with one, validation
    says so."""
    run = "MD-Workbench posix repetition 1 benchmark"
    docs = documents("posix")
    del docs["benchmark"]["positions_run"]
    assert problems(docs) == []
    walled = documents("posix", [[5, 5], [5, 5]], stonewall=1)
    del walled["benchmark"]["positions_run"]
    assert problems(walled) == [f"{run}: positions_run None is not 2 iterations x 2 ranks"]


def test_a_runs_recorded_coordinates_are_its_rules_wildcards_the_stonewall_among_them():
    where = coordinates(documents("indexfs", stonewall=3, wearout=1))
    assert set(where) == set(re.findall(r"\{(\w+)\}", MDWORKBENCH.path))
    assert where == dict(COORDS, interface="indexfs", stonewall=3, wearout=1)
    # Validation reads the stonewall from the documents: recorded without one, a run that
    # stopped early fails; recorded with one, it passes.
    docs = documents("posix", [[2, 5], [3, 1]], stonewall=1)
    assert problems(docs) == []
    for doc in docs.values():
        doc["coordinates"] = dict(doc["coordinates"], stonewall=0)
    assert "MD-Workbench posix repetition 1 benchmark: iteration 1 ran [2, 5] positions without a stonewall, " \
           "expected 5 each" in problems(docs)


def test_the_table_says_what_the_posix_baseline_is_subject_to():
    ext4 = {"fs": "ext4", "top_dir_flag": True, "synced": True, "settle_s": 0}
    note = posix_note([{"phase": "precreate", "posix_controls": ext4}, {"phase": "benchmark"}])
    assert note.startswith("POSIX directory: on ext4, top-directory flag (chattr +T) set; synced before each "
                           "run, without the 65 s wait")
    assert "skips the inodes freed in the previous minute" in note
    tmpfs = posix_note([{"posix_controls": dict(ext4, fs="tmpfs", top_dir_flag=False)}])
    assert tmpfs.startswith("POSIX directory: on tmpfs; synced") and "previous minute" not in tmpfs
    assert posix_note([{"phase": "benchmark"}]) == ""


def test_smoke_run_validates_tabulates_and_draws_every_interface(smoke):
    with open(smoke.out("mdworkbench", "validation.json")) as f:
        report = json.load(f)
    assert report["ok"] and report["runs_checked"] == 3
    with open(smoke.out("mdworkbench", "summary.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    ops = {(r["interface"], r["phase"], r["op"]) for r in rows}
    assert {("posix", "benchmark", op) for op in MDWB_OPS} <= ops
    assert {("indexfs", "benchmark", op) for op in MDWB_OPS} <= ops
    assert {op for i, p, op in ops if (i, p) == ("deltafs", "benchmark")} == {"stat", "read"}
    assert all(int(r["errors"]) == 0 and float(r["lat_median_us"]) > 0 for r in rows)
    with open(smoke.out("mdworkbench", "table.md")) as f:
        table = f.read()
    assert "| IndexFS service | benchmark | delete |" in table
    assert "POSIX directory: on " in table and "synced before each run" in table
    for ext in ("pdf", "png"):
        assert os.path.getsize(smoke.out("figures", f"mdworkbench_latency.{ext}")) > 1000
    runs = glob.glob(smoke.path("results", "runs", "mdworkbench", "posix", "*", "*", "rep1", "phases.jsonl"))
    assert sorted(coordinates(read(p))["interface"] for p in runs) == ["deltafs", "indexfs", "posix"]
    assert all(problems(read(p)) == [] for p in runs)


def test_cephfs_interface_needs_storage_rados(workflow_in):
    res = workflow_in.run("--dry-run", overrides={"mdworkbench": {"interfaces": ["posix", "cephfs"]}})
    assert res.returncode != 0
    assert ("mdworkbench.interfaces: cephfs needs storage: rados (its MDS runs in that Ceph cluster): use "
            "config/profiles/rados.yaml, or leave cephfs out") in res.stdout + res.stderr
