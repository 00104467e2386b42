"""Shared fixtures of the workflow tests (their helpers: workflow_helpers.py): a Snakemake
runner in a scratch working directory, two CPU hogs, and finished smoke runs (stores on
posix and on RADOS; both implementations on posix) that several tests inspect. The posix
smoke run works in a git repository holding the project's tracked outputs (.gitignore,
paper/, results/reference/) and another profile's results, so that tests can check it
changed none of them."""
import os
import signal
import subprocess
import time

import pytest
from workflow_helpers import BOTH, RADOS, Workflow, ceph_daemons, digests, need_archive, tracked_outputs_repo


@pytest.fixture
def two_cpu_hogs():
    """Two busy processes (`yes`), one per CPU of this 2-core machine, for the test's
    duration; killed by pid at its end and checked gone."""
    hogs = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(2)]
    try:
        time.sleep(0.5)
        yield [hog.pid for hog in hogs]
    finally:
        for hog in hogs:
            os.kill(hog.pid, signal.SIGKILL)
            hog.wait()
        assert not [hog.pid for hog in hogs if os.path.exists(f"/proc/{hog.pid}")], "a CPU hog outlived its test"


@pytest.fixture(scope="session")
def smoke(tmp_path_factory):
    """A completed smoke run (every rule) plus its HTML report, in a git repository of the
    tracked outputs beside a default profile's results (wf.untouched: their digests before)."""
    wf = Workflow(tmp_path_factory.mktemp("smoke"))
    tracked_outputs_repo(wf.workdir)
    default = wf.path("results", "default")
    os.makedirs(os.path.join(default, "figures"))
    for name in ("summary.csv", "claims.json", os.path.join("figures", "insert_throughput.png")):
        with open(os.path.join(default, name), "w") as f:
            f.write(f"the default profile's {name}\n")
    wf.untouched = {"results/default": digests(default), "paper": digests(wf.path("paper")),
                    "results/reference": digests(wf.path("results", "reference"))}
    res = wf.run()
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    wf.stderr = res.stderr
    rep = wf.run("--report", "results/smoke/report.html")
    assert rep.returncode == 0, rep.stderr[-3000:]
    return wf


@pytest.fixture(scope="session")
def rados_smoke(tmp_path_factory):
    """A completed run of the RADOS profile (the smoke scale, stores on a throw-away cluster)
    plus its HTML report; no Ceph daemon of it may outlive the run."""
    wf = Workflow(tmp_path_factory.mktemp("rados-smoke"), profile=RADOS)
    # Its MD-Workbench also runs on CephFS: at load 15-19 from other work the run took over
    # 600 s (2026-11-27; about 2 min on a quieter machine).
    res = wf.run(timeout=1200)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    wf.stderr = res.stderr
    wf.daemons_after_run = ceph_daemons(wf.workdir)
    rep = wf.run("--report", "results/rados/report.html")
    assert rep.returncode == 0, rep.stderr[-3000:]
    return wf


@pytest.fixture(scope="session")
def original_smoke(tmp_path_factory):
    """The smoke profile on both implementations, the original built from the archive
    (tests/workflow/test_original.py; its build serves test_original_rados.py too)."""
    need_archive()
    wf = Workflow(tmp_path_factory.mktemp("original-smoke"))
    # The original's build and both implementations' runs: about 5 min beside the rest of
    # the suite, and over 900 s on a fresh machine where every part of it built at once
    # (load 12-14, 2026-11-28).
    res = wf.run(overrides=BOTH, timeout=1800)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return wf


@pytest.fixture
def workflow_in(tmp_path):
    return Workflow(tmp_path)
