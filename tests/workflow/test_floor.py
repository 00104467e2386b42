"""The storage floor (workflows/rules/floor.smk): the smoke runs produce floor.csv, floor.md
and the figure with positive floors and remove what fio wrote; the fio jobs follow the store
settings; every read job reads data a write job staged before it; a missing or failing fio
ends the rule with one line naming the problem and the fix."""
import csv
import json
import os
import stat
from types import SimpleNamespace

import pytest


from workflows.floor import report
from workflows.floor.jobs import job_file, object_names, plan
from workflows.floor.measure import find_fio


def floor_rows(wf):
    with open(wf.out("floor.csv"), newline="") as f:
        return list(csv.DictReader(f))


def check_floor(wf, storage):
    rows = floor_rows(wf)
    assert rows and {r["storage"] for r in rows} == {storage}
    assert {(r["system"], r["phase"]) for r in rows} >= {("indexfs", "insert"), ("deltafs", "compaction"),
                                                        ("deltafs", "lstat")}
    assert all(float(r["floor_bytes_per_s"]) > 0 for r in rows)
    for r in rows:
        known = r["bytes_per_s"] != ""
        assert known == (not r["bytes_from"].startswith("unknown")), r
        assert known == (r["fraction_of_floor"] != ""), r
    with open(wf.out("floor.md")) as f:
        table = f.read()
    assert ("| system | phase | client ranks | files per rank | bytes/s | floor | floor bytes/s | fraction of the "
            "floor | bytes |") in table
    for ext in ("pdf", "png"):
        assert os.path.getsize(wf.out("figures", f"storage_floor.{ext}")) > 1000
    with open(wf.path("results", "floor", storage, os.path.basename(wf.out()), "floor.json")) as f:
        floor = json.load(f)
    assert floor["removed"] and floor["left_after_removal"] == []
    return rows, floor


def test_smoke_run_draws_the_posix_floor_and_removes_its_files(smoke):
    rows, floor = check_floor(smoke, "posix")
    assert not os.path.exists(floor["where"]), "the scratch directory outlived the floor"
    measured = {(r["system"], r["phase"]) for r in rows if r["bytes_from"].startswith("measured")}
    assert measured == {("deltafs", "insert"), ("deltafs", "compaction")}
    assert all(float(r["bytes_per_s"]) > 0 for r in rows)  # posix: every phase's bytes known or estimated


def floor_report(smoke, tmp_path, **changed):
    """Rule floor's script on the smoke run's fio and summary, every summary row `changed`:
    {csv, table, pdf, png} of what it wrote."""
    with open(smoke.out("summary.csv"), newline="") as f:
        summary = [dict(r, **changed) for r in csv.DictReader(f)]
    with open(tmp_path / "summary.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(summary[0]))
        w.writeheader()
        w.writerows(summary)
    floor_dir = smoke.path("results", "floor", "posix", "smoke")
    out = {"csv": tmp_path / "floor.csv", "table": tmp_path / "floor.md", "pdf": tmp_path / "floor.pdf",
           "png": tmp_path / "floor.png"}
    sm = SimpleNamespace(input=SimpleNamespace(summary=str(tmp_path / "summary.csv"), origins=[],
                                               fio=os.path.join(floor_dir, "fio.json"),
                                               floor=os.path.join(floor_dir, "floor.json")),
                         output=SimpleNamespace(**{k: str(v) for k, v in out.items()}), log=[str(tmp_path / "log")])
    report.main(sm)
    return out


def test_a_configuration_of_cephfs_alone_has_a_floor_with_no_phase_and_says_why(smoke, tmp_path):
    """systems: [cephfs]: no design's phase to set against the floor (the storage floor leaves
    CephFS out); the table and the figure say so (the figure once failed on an empty max())."""
    out = floor_report(smoke, tmp_path, system="cephfs")
    with open(out["csv"], newline="") as f:
        assert list(csv.DictReader(f)) == []
    assert "No design ran in this configuration (config key systems)" in out["table"].read_text()
    assert out["png"].stat().st_size > 1000


def test_a_configuration_of_the_original_alone_sets_the_floor_against_its_phases(smoke, tmp_path):
    """implementations: [original]: rule floor's script on the smoke run's fio and summary,
    every row the original's (no DeltaFS origin stores of ours): its phases against their
    floors, the table saying whose, the figure drawn (it once failed on an empty max())."""
    out = floor_report(smoke, tmp_path, implementation="original")
    with open(out["csv"], newline="") as f:
        rows = list(csv.DictReader(f))
    assert {(r["system"], r["phase"]) for r in rows} >= {("indexfs", "insert"), ("deltafs", "lstat")}
    assert all(float(r["floor_bytes_per_s"]) > 0 and (r["bytes_per_s"] == "") == (r["fraction_of_floor"] == "")
               for r in rows)
    assert "the original prototype's (our core did not run)" in out["table"].read_text()
    assert out["png"].stat().st_size > 1000


def test_every_read_job_reads_data_staged_before_it(smoke):
    with open(smoke.path("results", "floor", "posix", "smoke", "fio.json")) as f:
        jobs = {j["jobname"]: j for j in json.load(f)["jobs"]}
    write = jobs["table_write"]
    opts = write["job options"]
    staged = int(opts["nrfiles"]) * int(opts["filesize"])
    assert write["error"] == 0 and write["write"]["io_bytes"] == staged
    for name in ("lookup_read", "compaction_read"):
        read = jobs[name]
        assert read["groupid"] > write["groupid"], "a read job ran in the write job's group, not after it"
        for key in ("filename_format", "nrfiles", "filesize"):
            assert read["job options"][key] == opts[key], (name, key)
        assert read["job options"]["allow_file_create"] == "0"  # an unstaged file would fail it
        assert read["error"] == 0 and 0 < read["read"]["io_bytes"] <= staged


def test_fio_jobs_follow_the_store_settings():
    default = {j.name: j for j in plan({}, 8 << 20, "posix")}
    assert (default["table_write"].bs, default["table_write"].filesize, default["table_write"].nrfiles) == (
        4096, 4 << 20, 2)
    assert (default["log_append"].bs, default["log_append"].filesize) == (65536, 8 << 20)
    assert (default["compaction_read"].bs, default["lookup_read"].bs) == (4 << 20, 4096)
    changed = {"DELTAFS_Db_table_size": 1 << 20, "DELTAFS_Db_block_size": 16384,
               "DELTAFS_Db_write_ahead_log_buffer": 131072, "DELTAFS_Db_memtable_size": 2 << 20}
    jobs = plan(changed, 8 << 20, "posix")
    by = {j.name: j for j in jobs}
    assert (by["table_write"].bs, by["table_write"].filesize, by["table_write"].nrfiles) == (16384, 1 << 20, 8)
    assert (by["log_append"].bs, by["log_append"].filesize, by["log_append"].nrfiles) == (131072, 2 << 20, 4)
    text = job_file(jobs, "posix", "floor.", directory="/scratch")
    assert "bs=16384\nfilesize=1048576\nnrfiles=8" in text and "bs=131072\nfilesize=2097152" in text
    assert "filename_format=floor.table_write.$filenum" in text.split("[lookup_read]")[1]
    assert len(object_names(jobs, "floor.")) == 8 + 4
    # RADOS: files are striped over chunk objects; no write-ahead log, no log job
    rados = {j.name: j for j in plan({"DELTAFS_Db_table_size": 16 << 20, "DELTAFS_Db_disable_write_ahead_logging": 1},
                                     8 << 20, "rados", chunk_bytes=1 << 20)}
    assert "log_append" not in rados and rados["table_write"].filesize == 1 << 20
    assert "ioengine=rados\npool=p\nconf=/c.conf" in job_file(list(rados.values()), "rados", "x.", pool="p",
                                                             conf="/c.conf")


def test_missing_fio_names_the_fix(tmp_path):
    with pytest.raises(SystemExit) as e:
        find_fio(path=str(tmp_path))
    assert str(e.value) == ("storage_floor: fio is not on PATH: install it: apt-get install fio "
                            "(scripts/install-deps.sh)")


def test_failing_fio_fails_the_rule_with_one_line_and_leaves_no_file(workflow_in, tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "fio").write_text("#!/bin/sh\necho 'fio: engine psync not loadable' >&2\nexit 1\n")
    (fake / "fio").chmod(stat.S_IRWXU)
    res = workflow_in.run("--until", "storage_floor", env={"PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"})
    assert res.returncode != 0, res.stdout[-2000:] + res.stderr[-2000:]
    out = res.stdout + res.stderr
    line = "storage_floor: fio failed (exit 1): fio: engine psync not loadable; see results/logs/floor/posix/smoke.log"
    assert line in out, out[-3000:]
    assert not os.path.exists(workflow_in.path("results", "floor", "posix", "smoke", "scratch"))


def test_rados_floor_is_produced_and_leaves_no_object(rados_smoke):
    rows, floor = check_floor(rados_smoke, "rados")
    assert all(name.startswith("deltameta-results.floor.rados.") for name in floor["removed"])
    with open(rados_smoke.path("results", "logs", "floor", "rados", "rados.log")) as f:
        assert "of prefix deltameta-results.floor.rados. left" in f.read()
    assert {r["bytes_from"] for r in rows if r["phase"] != "lstat"} == {
        "unknown: the runs record no bytes and the stores are in RADOS, not measured"}
