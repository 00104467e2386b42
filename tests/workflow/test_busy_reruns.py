"""Reruns of runs measured on a busy machine (config key environment_reruns;
workflows/bin/rerun_when_busy.py, workflows/environment/reruns.py): the decision on recorded
phase documents, through the entry point as the run rules start it (busy above the bound:
rerun; at or below it: none; a failed command: no rerun, its exit status kept); a real run of
core/bench/runs.py beside two CPU hogs; the run rules' command lines with and without
reruns; summary.csv's reruns columns, claims.md's section and the front page's line."""
import csv
import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest
from workflow_helpers import BUILT, NO_MDWB, REPO, SMOKE, Workflow, interrupt_during_client, with_pythonpath
from test_claims import CLAIMS, measured_in
from test_phase_environment import READINGS, TOOLS

from workflows.claims import verdicts
from workflows.claims.front_page import environment_lines
from workflows.environment.phase import cpu_shares
from workflows.results import aggregate
from workflows.results.summary import load

RERUN_WHEN_BUSY = os.path.join(REPO, "workflows", "bin", "rerun_when_busy.py")
SHARE = cpu_shares({"readings": READINGS})["cpu_other_share"]  # 0.5: the recorded readings' other processes
# A command standing for a run: writes the phase documents of argv[1] (JSON) to --out,
# counts its attempts in argv[2] and exits with argv[3]'s status.
FAKE_RUN = """
import json, sys
docs, attempts, status = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3])
with open(attempts, "a") as f:
    f.write("attempt\\n")
with open(sys.argv[sys.argv.index("--out") + 1], "w") as f:
    f.writelines(json.dumps(d) + "\\n" for d in docs)
sys.exit(status)
"""


def rerun_when_busy(tmp_path, bound, reruns, command):
    return subprocess.run([sys.executable, RERUN_WHEN_BUSY, "--reruns", str(reruns), "--bound", str(bound),
                           *command], capture_output=True, text=True, timeout=600, env=with_pythonpath(), cwd=tmp_path)


def fake_run(tmp_path, bound, reruns=2, status=0):
    """The entry point on FAKE_RUN with two recorded phases, the insert's readings READINGS'
    (other processes' share SHARE); (its result, attempts made, the documents left)."""
    docs = [{"run": "indexfs", "phase": "insert", "environment": {"readings": READINGS}},
            {"run": "indexfs", "phase": "lstat", "environment": {"readings": []}}]
    out, attempts, log = tmp_path / "o.jsonl", tmp_path / "attempts", tmp_path / "l.log"
    res = rerun_when_busy(tmp_path, bound, reruns, [sys.executable, "-c", FAKE_RUN, json.dumps(docs), str(attempts),
                                                    str(status), "--out", str(out), "--log", str(log)])
    left = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return res, len(attempts.read_text().splitlines()), left


def test_a_phase_busier_than_the_bound_is_rerun_at_most_n_times_and_recorded(tmp_path):
    assert SHARE == pytest.approx(0.5)
    res, attempts, docs = fake_run(tmp_path, bound=0.1, reruns=2)
    assert res.returncode == 0, res.stderr
    assert attempts == 3
    lines = res.stderr.splitlines()
    assert lines[:2] == [f"rerun_when_busy: rerun {k} of 2: other processes used 50% of the CPUs during indexfs "
                         "insert, more than the claims' 10%" for k in (1, 2)], res.stderr
    assert "still used 50%" in lines[2] and len(lines) == 3
    for d in docs:
        assert [(r["phase"], r["cpu_other_share"], r["bound"]) for r in d["reruns"]] == [("insert", SHARE, 0.1)] * 2
        assert all(r["at"].endswith("+00:00") for r in d["reruns"])
    assert (tmp_path / "l.log").read_text().count("rerun_when_busy: rerun") == 2


def test_at_or_below_the_bound_there_is_no_rerun(tmp_path):
    for bound in (SHARE, 0.9):
        res, attempts, docs = fake_run(tmp_path, bound=bound)
        assert (res.returncode, attempts, res.stderr) == (0, 1, ""), bound
        assert all("reruns" not in d for d in docs)
        (tmp_path / "attempts").unlink()


def test_a_failed_command_is_not_rerun_and_its_exit_status_is_kept(tmp_path):
    res, attempts, docs = fake_run(tmp_path, bound=0.1, status=3)
    assert (res.returncode, attempts) == (3, 1)
    assert "rerun" not in res.stderr and all("reruns" not in d for d in docs)


def test_a_command_without_its_results_file_is_refused(tmp_path):
    res = rerun_when_busy(tmp_path, 0.1, 1, ["true"])
    assert res.returncode == 2 and "the command names no results file (--out FILE)" in res.stderr


def run_indexfs(tmp_path, bound):
    """runs.py's indexfs (1 client rank, 1 server, 20,000 files) as a run rule starts it,
    under the entry point with one rerun allowed: (its result, its documents)."""
    if not os.access(os.path.join(TOOLS, "deltameta_client"), os.X_OK):
        pytest.skip(f"no core built in {TOOLS}")
    out = tmp_path / "o.jsonl"
    res = rerun_when_busy(tmp_path, bound, 1, [
        "python3", os.path.join(REPO, "workflows", "bin", "slurm_run.py"), "mpiexec", "python3",
        os.path.join(REPO, "core", "bench", "runs.py"), "indexfs", "--bin", TOOLS, "--ranks", "1", "--servers", "1",
        "--n", "20000", "--work", str(tmp_path / "w"), "--out", str(out), "--log", str(tmp_path / "l.log")])
    assert res.returncode == 0, res.stderr
    return res, [json.loads(line) for line in out.read_text().splitlines()]


def test_a_run_beside_two_cpu_hogs_is_rerun_once(tmp_path, two_cpu_hogs):
    res, docs = run_indexfs(tmp_path, 0.3)
    assert [d["phase"] for d in docs] == ["insert", "lstat"]  # one attempt's documents
    assert res.stderr.count("rerun_when_busy: rerun 1 of 1: other processes used ") == 1, res.stderr
    assert "of the CPUs during indexfs " in res.stderr and "more than the claims' 30%" in res.stderr
    reruns = docs[0]["reruns"]
    assert len(reruns) == 1 and reruns[0]["cpu_other_share"] > 0.3 and docs[1]["reruns"] == reruns
    assert not os.path.exists(tmp_path / "w" / "svr")  # the stores removed after each attempt
    # summary.csv's columns and claims.md's section on these documents
    summary = tmp_path / "summary.csv"
    aggregate.main(SimpleNamespace(input=SimpleNamespace(runs=[str(tmp_path / "o.jsonl")]), output=[str(summary)],
                                   log=[str(tmp_path / "aggregate.log")]))
    with open(summary, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["reruns"] for r in rows] == ["1", "1"]
    assert rows[0]["rerun_causes"] == f"{reruns[0]['phase']}={reruns[0]['cpu_other_share']:.3f}"
    assert any(line.startswith("- Rerun because other processes were busy: 1 run, 1 rerun(s)")
               for line in environment_lines(load(str(summary))))


def test_a_run_within_the_bound_is_not_rerun(tmp_path, two_cpu_hogs):
    res, docs = run_indexfs(tmp_path, 1.0)
    assert "rerun" not in res.stderr and all("reruns" not in d for d in docs)


def test_every_run_kind_runs_again_in_its_folder(tmp_path):
    """A rerun executes the run's command again in the same folder: each run kind then ends
    as a first execution does (runs.py clears a store before a phase writes it; the DeltaFS
    client refused an existing one), with only the second execution's documents."""
    if not os.access(os.path.join(TOOLS, "deltameta_client"), os.X_OK):
        pytest.skip(f"no core built in {TOOLS}")
    work, origin, compacted = tmp_path / "w", str(tmp_path / "w" / "origin"), str(tmp_path / "w" / "r2" / "compacted")
    runs = {"indexfs": ["--servers", "1"], "indexfs-bulk": ["--servers", "1"], "deltafs-write": ["--origin", origin],
            "deltafs-compact": ["--servers", "2", "--origin", origin, "--compacted", compacted],
            "deltafs-read": ["--servers", "2", "--compacted", compacted],
            "mdworkbench": ["--interface", "deltafs", "--servers", "2", "--data-sets", "2", "--precreate", "50",
                            "--objects", "20", "--iterations", "1"]}
    for run, options in runs.items():
        out = tmp_path / f"{run}.jsonl"
        for attempt in (1, 2):
            res = subprocess.run([sys.executable, os.path.join(REPO, "core", "bench", "runs.py"), run, "--bin", TOOLS,
                                  "--ranks", "2", "--n", "2000", "--work", str(work / run), "--out", str(out), "--log",
                                  str(tmp_path / f"{run}.log"), *options], capture_output=True, text=True, timeout=300)
            assert res.returncode == 0, f"{run}, execution {attempt}: {res.stderr}"
        docs = [json.loads(line) for line in out.read_text().splitlines()]
        assert docs and len(docs) == len({d["phase"] for d in docs}), (run, [d["phase"] for d in docs])
        if run != "mdworkbench":
            assert all(d["ops"] == 4000 and d["errors"]["total"] == 0 for d in docs), run


def test_a_store_path_holding_what_deltameta_did_not_make_is_kept_and_the_run_fails(tmp_path):
    """Clearing a store before a phase writes it removes only a tree deltameta made: where the
    path holds a user's file, the run fails in one line naming it and the file is kept."""
    if not os.access(os.path.join(TOOLS, "deltameta_client"), os.X_OK):
        pytest.skip(f"no core built in {TOOLS}")
    origin = tmp_path / "origin"
    (origin / "r0").mkdir(parents=True)
    (origin / "r0" / "notes.txt").write_text("mine\n")
    runs_py = os.path.join(REPO, "core", "bench", "runs.py")
    res = subprocess.run([sys.executable, runs_py, "deltafs-write", "--bin", TOOLS, "--ranks", "2", "--n", "100",
                          "--origin", str(origin), "--work", str(tmp_path / "w"), "--out", str(tmp_path / "o.jsonl"),
                          "--log", str(tmp_path / "l.log")], capture_output=True, text=True, timeout=300)
    assert res.returncode != 0
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "deltameta_storage rm" in lines[0] and str(origin) in lines[0], res.stderr
    assert (origin / "r0" / "notes.txt").read_text() == "mine\n"


def run_commands(tmp_path, overrides):
    """The shell commands of a dry run of the smoke profile (the core as built), with `overrides`."""
    res = Workflow(tmp_path).run("--dry-run", "--printshellcmds", overrides=dict(BUILT, **overrides))
    assert res.returncode == 0, res.stderr[-3000:]
    return [line for line in res.stdout.splitlines() if "slurm_run.py" in line]


def test_the_run_rules_start_the_entry_point_only_with_reruns(tmp_path):
    (tmp_path / "on").mkdir()
    (tmp_path / "off").mkdir()
    on, off = run_commands(tmp_path / "on", {"environment_reruns": 2}), run_commands(tmp_path / "off", {})
    assert len(on) == len(off) > 0
    assert all(f"python3 {RERUN_WHEN_BUSY} --reruns 2 --bound 0.1 python3 " in c for c in on)
    assert not any("rerun_when_busy" in c for c in off)
    refused = Workflow(tmp_path, SMOKE).run("--dry-run", overrides={"environment_reruns": -1})
    assert refused.returncode != 0 and "environment_reruns" in refused.stdout + refused.stderr


def test_claims_md_names_the_runs_rerun_and_why(tmp_path):
    rows = measured_in(load(os.path.join(REPO, "results", "reference", "summary.csv")), reruns=0, rerun_causes="")
    for r in rows:
        if (r["system"], r["client_ranks"], r["repetition"]) == ("indexfs", 4, 2):
            r.update(reruns=2, rerun_causes="insert=0.342; lstat=0.118")
    summary = tmp_path / "summary.csv"
    with open(summary, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    out = SimpleNamespace(json=str(tmp_path / "claims.json"), table=str(tmp_path / "claims.md"))
    verdicts.main(SimpleNamespace(input=SimpleNamespace(claims=CLAIMS, summary=str(summary)), output=out,
                                  params=SimpleNamespace(systems=["indexfs", "indexfs-bulk", "deltafs"]),
                                  log=[str(tmp_path / "claims.log")]))
    text = (tmp_path / "claims.md").read_text()
    assert "\n# Runs rerun on a busy machine\n" in text
    assert ("- indexfs insert/lstat (deltameta, posix) at 4 client ranks, 2 servers, 50,000 files per rank, "
            "repetition 2: rerun 2 times (other processes used 34% of the CPUs during insert; other processes used "
            "12% of the CPUs during lstat)") in text, text
    assert "more than the claims' 10% of the CPUs" in text
    # no rerun: no section
    for r in rows:
        r.update(reruns=0, rerun_causes="")
    with open(summary, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    verdicts.main(SimpleNamespace(input=SimpleNamespace(claims=CLAIMS, summary=str(summary)), output=out,
                                  params=SimpleNamespace(systems=["indexfs", "indexfs-bulk", "deltafs"]),
                                  log=[str(tmp_path / "claims.log")]))
    assert "# Runs rerun on a busy machine" not in (tmp_path / "claims.md").read_text()


def test_a_terminals_ctrl_c_with_reruns_on_leaves_no_process(workflow_in):
    """The entry point between snakemake and runs.py: a terminal's Ctrl-C (SIGINT to
    snakemake's whole process group) still stops the run and its servers, and no rerun
    starts. (SIGINT to snakemake alone lets the running job end, its reruns too.)"""
    interrupt_during_client(workflow_in, {**BUILT, **NO_MDWB, "systems": ["indexfs"], "client_ranks": [2],
                                          "repetitions": 1, "files_per_rank": 400000, "environment_reruns": 2},
                            whole_group=True)
