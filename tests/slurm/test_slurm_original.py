"""The authors' original prototype beside our core through the workflow's Slurm profile on
the one-host cluster (conftest.py): every run of either implementation is one Slurm job, the
original's mpiexec jobs steps of that job's allocation started through its hostfile
(workflows/bin/slurm_run.py, srun_mpiexec.py), validated with exact counts, their CPU sampled
from the ranks slurmstepd started. The one host cannot show ranks on two nodes: that the
original's jobs go where a hostfile of several hosts says is tests/workflow/test_original_hosts.py."""
import json
import os

import pytest

from slurm_helpers import REPO, SlurmWorkflow, jobcomp, queued_jobs, run_docs

BUILD = os.environ.get("DELTAMETA_BUILD_DIR", os.path.join(REPO, "build", "core"))
UPSTREAM = os.environ.get("DELTAMETA_UPSTREAM") or os.path.join(REPO, "..", "shared", "upstream")
ARCHIVE = os.path.join(UPSTREAM, "deltafs-proto-2021.5.tar.gz")
BOTH = {"name": "slurm-original", "implementations": ["deltameta", "original"], "client_ranks": [2],
        "repetitions": 1, "mdworkbench": {"interfaces": []}, "core": {"build": "installed", "bin_dir": BUILD}}


def expected_ops(phase, ranks=2, files=500):
    """Operations a phase of the original's runs must report: ranks x files, and the compactor
    one more per rank (it moves each writer store's root entry too)."""
    return ranks * files + (ranks if phase == "compaction" else 0)


def test_the_original_runs_as_slurm_jobs_beside_ours(slurm_cluster, tmp_path):
    if not os.path.isfile(ARCHIVE):
        pytest.skip(f"{ARCHIVE} is not there: the original prototype's release archive")
    if not os.access(os.path.join(BUILD, "deltameta_server"), os.X_OK):
        pytest.skip(f"the core's tools are not built in {BUILD} (scripts/build-core.sh)")
    wf = SlurmWorkflow(tmp_path, overrides=BOTH)
    # Up to validation (the figures and claims add nothing under Slurm; their rules run here). The
    # limit is a bound, not the expected time: 2 min with the original's build on 2 quiet cores;
    # at load 15-20 the whole workflow (analysis too) ran over 25 min.
    res = wf.run("--until", "validate", timeout=2400)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    with open(wf.path("results", "slurm-original", "validation.json")) as f:
        assert json.load(f)["ok"] is True
    completed = jobcomp(os.path.join(slurm_cluster, "jobcomp.log"))
    docs = run_docs(wf.workdir)
    original = {p: d for p, d in docs.items() if os.sep + "original" + os.sep in p}
    assert len(original) == 5 and len(docs) == 10, sorted(docs)  # 5 runs (IndexFS, bulk, DeltaFS's 3) each
    jobs = set()
    for path, phases in original.items():
        (job,) = {d["slurm"]["job_id"] for d in phases}
        jobs.add(job)
        assert completed[job]["JobState"] == "COMPLETED", (path, completed[job])
        for d in phases:
            assert d["ops"] == expected_ops(d["phase"]) and d["errors"]["total"] == 0, (path, d)
            assert d["build"]["implementation"] == "deltafs-proto" and d["placement"] == {"hosts": 1}
        assert phases[0]["cpu_s"]["clients"] > 0, (path, phases[0]["cpu_s"])  # the ranks srun started, sampled
        with open(os.path.join(os.path.dirname(path), "jobs", "commands.log")) as f:
            commands = [line for line in f if line.strip()]
        hostfile = os.path.join(os.path.dirname(path), "slurm-hostfile")
        assert commands and all("srun_mpiexec.py -n " in c and f" -f {hostfile} " in c for c in commands), commands
    assert len(jobs) == 5 and not jobs & {d["slurm"]["job_id"] for p, ds in docs.items() if p not in original
                                           for d in ds}
    assert queued_jobs() == []
