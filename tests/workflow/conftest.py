"""Shared fixtures of the workflow tests: a Snakemake runner in a scratch working
directory, and one finished smoke run that several tests inspect."""
import json
import os
import subprocess
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SMOKE = os.path.join(REPO, "config", "profiles", "smoke.yaml")


def deltameta_processes(workdir):
    """(pid, command line) of every process working in `workdir` (the workflow's jobs, MPI
    launchers and ranks run there) or naming it, other than this test."""
    out = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        pid, _, args = line.strip().partition(" ")
        if int(pid) == os.getpid() or args.startswith("ps -eo"):
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            cwd = ""
        if cwd.startswith(workdir) or workdir in args:
            found.append((int(pid), args))
    return found


class Workflow:
    def __init__(self, workdir):
        self.workdir = str(workdir)

    def command(self, *args, overrides=None):
        """Snakemake on the smoke profile, plus `overrides` (a dict) as one more config file."""
        configs = [SMOKE]
        if overrides:
            configs.append(os.path.join(self.workdir, f"overrides-{len(os.listdir(self.workdir))}.json"))
            with open(configs[-1], "w") as f:
                json.dump(overrides, f)
        return [sys.executable, "-m", "snakemake", "-s", os.path.join(REPO, "Snakefile"), "--directory",
                self.workdir, "--cores", "2", "--configfile", *configs] + list(args)

    def run(self, *args, overrides=None, timeout=600):
        return subprocess.run(self.command(*args, overrides=overrides), capture_output=True, text=True,
                              timeout=timeout)

    def path(self, *parts):
        return os.path.join(self.workdir, *parts)


@pytest.fixture(scope="session")
def smoke(tmp_path_factory):
    """A completed smoke run (every rule) plus its HTML report."""
    wf = Workflow(tmp_path_factory.mktemp("smoke"))
    res = wf.run()
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    rep = wf.run("--report", "results/report.html")
    assert rep.returncode == 0, rep.stderr[-3000:]
    return wf


@pytest.fixture
def workflow_in(tmp_path):
    return Workflow(tmp_path)
