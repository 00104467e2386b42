"""The pre-flight on real workflow starts (the smoke profile up to its first job, the core
as build/core has it): its block and its record; none on a dry run; beside two CPU hogs a
warning, and with strict_environment one line and no job; results/ on an overlay named
(where a mount namespace can be had)."""
import json
import os
import re

from workflow_helpers import BUILT, NO_MDWB, run_on_an_overlay

CHEAP = {**BUILT, **NO_MDWB}
UNTIL_FIRST_JOB = ("--until", "build_core")
STRICT = ("--config", "strict_environment=true")


def lines(res, start):
    return [line for line in res.stderr.splitlines() if line.startswith(start)]


def test_a_workflow_start_prints_the_block_and_records_it(workflow_in):
    res = workflow_in.run(*UNTIL_FIRST_JOB, overrides=CHEAP)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    block = lines(res, "pre-flight:")
    assert re.match(r"pre-flight: 2 cores given to snakemake, \d+ available; the machine was \d+% busy over 1 s"
                    r"( \(steal \d+%\))?, load average [\d.]+ [\d.]+ [\d.]+$", block[0]), block
    for label in ("results/smoke/", "results/runs/", "results/floor/posix/smoke/"):
        assert sum(label in line and " on " in line for line in block[1:-1]) == 1, (label, block)
    assert re.match(r"pre-flight: /dev/shm [\d.]+ [GM]iB, [\d.]+ [GM]iB free$", block[-1]), block
    with open(workflow_in.out("preflight.json")) as f:
        found = json.load(f)
    assert found["cores"]["given"] == 2 and set(found["stores"]) == {"results/smoke/", "results/runs/",
                                                                     "results/floor/posix/smoke/"}
    assert [f"warning: {o}" for o in found["outside"]] == lines(res, "warning:")


def test_a_dry_run_has_no_preflight(workflow_in):
    res = workflow_in.run("--dry-run", overrides=CHEAP)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    assert "pre-flight" not in res.stdout + res.stderr
    assert not os.path.exists(workflow_in.out("preflight.json"))


def test_two_cpu_hogs_are_a_warning_and_the_run_goes_on(workflow_in, two_cpu_hogs):
    res = workflow_in.run(*UNTIL_FIRST_JOB, overrides=CHEAP)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    assert len([w for w in lines(res, "warning: other processes used ") if "of the CPUs over 1 s" in w]) == 1, \
        res.stdout[-2000:] + res.stderr[-3000:]
    assert os.path.exists(workflow_in.path("results", "core", "tools.json"))


def test_strict_environment_with_two_cpu_hogs_stops_with_one_line_before_any_job(workflow_in, two_cpu_hogs):
    res = workflow_in.run(*UNTIL_FIRST_JOB, *STRICT, overrides=CHEAP)
    assert res.returncode != 0, res.stdout[-2000:] + res.stderr[-3000:]
    stop = lines(res, "pre-flight: other processes used ")
    assert len(stop) == 1 and lines(res, "warning:") == [], res.stdout[-2000:] + res.stderr[-3000:]
    m = re.match(r"pre-flight: other processes used (\d+)% of the CPUs over 1 s, more than the claims' 10% "
                 r"\(rerun on an otherwise idle machine(\)|, or drop strict_environment\))", stop[0])
    assert m and int(m.group(1)) > 50, stop[0]
    assert stop[0].endswith(", or drop strict_environment)")
    assert not os.path.exists(workflow_in.path("results", "core", "tools.json"))


def test_results_on_an_overlay_are_named(workflow_in, tmp_path):
    work = workflow_in.workdir
    res = run_on_an_overlay(workflow_in, tmp_path, *UNTIL_FIRST_JOB, *STRICT, overrides=CHEAP)
    assert res.returncode != 0, res.stdout[-2000:] + res.stderr[-3000:]
    stop = lines(res, "pre-flight: ")[-1]
    assert f"results/smoke/ is on overlay (overlay or FUSE, mounted at {work}/results)" in stop, stop
    assert "results/runs/ is on overlay" in stop and stop.endswith(", or drop strict_environment)")
