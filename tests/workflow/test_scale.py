"""Several files per rank (config key files_per_rank as a list) and the scale figure: a run at
two values makes, validates, aggregates, tabulates and checks the claims of every run at each,
and scale_throughput draws a point at each total; a bad value stops the workflow with one line
naming the key and what it takes."""
import csv
import json

import pytest

from workflow_helpers import BUILT, NO_MDWB, Workflow

NS = [200, 400]
PHASES = {("indexfs", "insert"), ("indexfs", "lstat"), ("deltafs", "insert"), ("deltafs", "compaction"),
          ("deltafs", "lstat")}


@pytest.fixture(scope="module")
def two_ns(tmp_path_factory):
    """A run of IndexFS and DeltaFS at 1 client rank x 200 and 400 files, 1 repetition."""
    wf = Workflow(tmp_path_factory.mktemp("two-ns"))
    res = wf.run(overrides={**NO_MDWB, **BUILT, "systems": ["indexfs", "deltafs"], "client_ranks": [1],
                            "files_per_rank": NS, "repetitions": 1})
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return wf


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_every_run_at_each_files_per_rank_validates_with_its_own_op_counts(two_ns):
    rows = read_csv(two_ns.out("summary.csv"))
    assert {(r["system"], r["phase"], int(r["files_per_rank"])) for r in rows} == {
        (s, p, n) for s, p in PHASES for n in NS}
    for r in rows:
        assert int(r["ops"]) == int(r["expected_ops"]) == int(r["client_ranks"]) * int(r["files_per_rank"])
        assert int(r["errors"]) == 0
    with open(two_ns.out("validation.json")) as f:
        v = json.load(f)
    assert v["ok"] and v["phases_checked"] == len(PHASES) * len(NS)
    assert set(v["runs_per_files_per_rank"]) == {str(n) for n in NS}


def test_scale_figure_draws_a_point_at_each_total(two_ns):
    points = read_csv(two_ns.out("figures", "scale_throughput.csv"))
    for system, phase in PHASES:
        line = [p for p in points if (p["system"], p["phase"]) == (system, phase)]
        assert [int(p["total_files"]) for p in line] == NS, (system, phase)  # 1 client rank x n
        assert all(float(p["min_mops"]) <= float(p["median_mops"]) <= float(p["max_mops"]) for p in line)
    with open(two_ns.out("figures", "scale_throughput.pdf"), "rb") as f:
        assert f.read(5) == b"%PDF-"
    with open(two_ns.out("figures", "scale_throughput.png"), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_claims_tables_and_floor_name_each_files_per_rank(two_ns):
    with open(two_ns.out("claims.json")) as f:
        claims = json.load(f)["claims"]
    tested = [c for c in claims if c["status"] != "not tested"]
    assert tested and all(sorted(p["files_per_rank"] for p in c["per_client_ranks"]) == NS for c in tested)
    with open(two_ns.out("claims.md")) as f:
        md = f.read()
    assert "| claim | client ranks | files per rank | median ratio | range | held |" in md
    assert "at 1 client ranks x 200-400 files per rank" in md
    with open(two_ns.out("results-table.md")) as f:
        table = f.read()
    assert all(f"| IndexFS | insert | 1 | 2 | {n} | 1 |" in table for n in NS)
    assert {(r["system"], r["phase"], int(r["files_per_rank"])) for r in read_csv(two_ns.out("floor.csv"))} == {
        (s, p, n) for s, p in PHASES for n in NS}


@pytest.mark.parametrize("value", [0, "many", []])
def test_a_bad_files_per_rank_fails_with_one_line_naming_the_key_and_the_fix(workflow_in, value):
    res = workflow_in.run("--dry-run", overrides={"files_per_rank": value})
    assert res.returncode != 0, res.stdout[-2000:] + res.stderr[-2000:]
    lines = [line for line in (res.stdout + res.stderr).splitlines() if "files_per_rank" in line]
    assert len(lines) == 1, lines
    assert lines[0].startswith("config key files_per_rank: ")
    assert "it takes a positive integer" in lines[0] and "non-empty list of distinct positive integers" in lines[0]
