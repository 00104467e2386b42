"""Helpers of the workflow tests (a module of its own name: test directories share the name
`conftest`): the profiles and the configuration overrides the tests run with, where the
original prototype's release archive is, the environment of a Python subprocess that
imports the workflow's package or core/bench (with_pythonpath), a Snakemake runner in a scratch working directory
(Workflow), the processes and Ceph daemons a run leaves, an interrupted run, a git
repository of the project's tracked outputs, a mount namespace to mount file systems in, and
a run with results/ on an overlay."""
import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time

import pytest

from workflows.launch import original_source
from workflows.registry import DESIGNS

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SMOKE = os.path.join(REPO, "config", "profiles", "smoke.yaml")
RADOS = os.path.join(REPO, "config", "profiles", "rados.yaml")
# Overrides: the core as build/core has it (no build rule run), and no MD-Workbench runs
# (for tests about the designs' runs only).
BUILT = {"core": {"build": "installed", "bin_dir": os.path.join(REPO, "build", "core")}}
NO_MDWB = {"mdworkbench": {"interfaces": []}}


UPSTREAM = os.environ.get("DELTAMETA_UPSTREAM") or os.path.join(REPO, "..", "shared", "upstream")
ARCHIVE = os.path.join(UPSTREAM, original_source.ARCHIVE)  # the original prototype's release archive
# Both implementations run the paper's designs (the rados profile also lists cephfs, which the original has not).
BOTH = dict(BUILT, **NO_MDWB, implementations=["deltameta", "original"], systems=list(DESIGNS))


def with_pythonpath():
    """This process's environment with PYTHONPATH as the Snakefile sets it for the workflow's
    jobs: the repository's root (the package workflows/) and core/bench, then any PYTHONPATH
    already set; for a Python subprocess that imports either."""
    path = [REPO, os.path.join(REPO, "core", "bench"), os.environ.get("PYTHONPATH")]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, path)))


def tools_bin(workflow):
    """The folder of the original's tools a workflow run built (its tools record)."""
    with open(workflow.path("results", "original", "tools.json")) as f:
        return json.load(f)["bin_dir"]


def need_archive():
    if not os.path.isfile(ARCHIVE):
        pytest.skip(f"{ARCHIVE} is not there: the original prototype's release archive "
                    "(DELTAMETA_UPSTREAM names the folder holding it)")


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


def ceph_daemons(workdir):
    """(pid, command line) of every ceph-mon, ceph-osd or ceph-mds of a cluster under
    `workdir` (the workflow's throw-away cluster lives in its results/ceph)."""
    return [(pid, args) for pid, args in deltameta_processes(workdir)
            if os.path.basename(args.split()[0]) in ("ceph-mon", "ceph-osd", "ceph-mds")]


def _sigint_as_a_terminal_has_it():
    """In the child before snakemake starts: SIGINT's default action, whatever the test
    command was started with (a shell's `cmd &` hands SIGINT on ignored, and an ignored
    SIGINT would reach snakemake and its jobs as ignored too)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_during_client(wf, overrides, whole_group, while_running=None):
    """Starts snakemake, waits for a client job, calls `while_running` (checks on the live
    run), then sends SIGINT: to snakemake alone, or as a terminal's Ctrl-C does, to its whole
    process group. Fails unless snakemake then exits non-zero and no process of the run is
    left; a failure shows the end of what snakemake printed."""
    log_path = os.path.join(wf.workdir, "interrupted-run.log")
    with open(log_path, "w") as log:
        proc = subprocess.Popen(wf.command(overrides=overrides), stdout=log, stderr=subprocess.STDOUT,
                                process_group=0 if whole_group else None, preexec_fn=_sigint_as_a_terminal_has_it)

    def printed():
        with open(log_path) as f:
            return "snakemake printed (end):\n" + f.read()[-3000:]

    try:
        deadline = time.monotonic() + 120
        while not any("deltameta_client" in args for _, args in deltameta_processes(wf.workdir)):
            assert proc.poll() is None and time.monotonic() < deadline, "the client job never started; " + printed()
            time.sleep(0.2)
        if while_running:
            while_running()
        if whole_group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=120) != 0, "snakemake went on after SIGINT; " + printed()
        deadline = time.monotonic() + 30
        while deltameta_processes(wf.workdir) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert deltameta_processes(wf.workdir) == []
    finally:
        if proc.poll() is None:
            proc.kill()


class Workflow:
    def __init__(self, workdir, profile=SMOKE):
        self.workdir, self.profile = str(workdir), profile

    def command(self, *args, overrides=None):
        """Snakemake on the profile (smoke by default), plus `overrides` (a dict) as one more config file."""
        configs = [self.profile]
        if overrides:
            configs.append(os.path.join(self.workdir, f"overrides-{len(os.listdir(self.workdir))}.json"))
            with open(configs[-1], "w") as f:
                json.dump(overrides, f)
        return [sys.executable, "-m", "snakemake", "-s", os.path.join(REPO, "Snakefile"), "--directory",
                self.workdir, "--cores", "2", "--configfile", *configs] + list(args)

    def run(self, *args, overrides=None, timeout=600, env=None):
        """Runs Snakemake; `env` (a dict) is added to this process's environment. Past
        `timeout` seconds Snakemake and the jobs it started (its process group) are killed
        and the test fails with the end of its log, which names the jobs it was running."""
        with subprocess.Popen(self.command(*args, overrides=overrides), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=True,
                              env=dict(os.environ, **(env or {}))) as proc:
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                out, err = proc.communicate()
                pytest.fail(f"snakemake had not ended after {timeout} s (killed, with its jobs); the end of its "
                            "log:\n" + "\n".join(err.splitlines()[-40:]), pytrace=False)
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

    def path(self, *parts):
        return os.path.join(self.workdir, *parts)

    def out(self, *parts):
        """A path in the profile's own output folder, results/<name>/."""
        name = os.path.splitext(os.path.basename(self.profile))[0]
        return self.path("results", name, *parts)


def git(workdir, *args):
    return subprocess.run(["git", "-C", workdir, *args], capture_output=True, text=True, check=True).stdout


def tracked_outputs_repo(workdir):
    """Makes `workdir` a git repository holding the project's .gitignore and its tracked
    outputs (paper/, results/reference/), committed."""
    shutil.copy(os.path.join(REPO, ".gitignore"), workdir)
    for tree in ("paper", os.path.join("results", "reference")):
        shutil.copytree(os.path.join(REPO, tree), os.path.join(workdir, tree))
    git(workdir, "init", "-q")
    git(workdir, "add", "-A")
    git(workdir, "-c", "user.name=test", "-c", "user.email=test@localhost", "commit", "-qm", "tracked outputs")


def digests(root):
    """{path under root: sha256} of every file under root."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = hashlib.sha256(f.read()).hexdigest()
    return out


def mount_namespace():
    """unshare's options for a mount namespace of this process's own (as root; otherwise in a
    user namespace), or pytest.skip naming why there is none."""
    if not shutil.which("unshare"):
        pytest.skip("unshare (util-linux) is not installed")
    options = ["--mount"] if os.geteuid() == 0 else ["--map-root-user", "--mount"]
    res = subprocess.run(["unshare", *options, "true"], capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"no mount namespace to mount a tmpfs and an overlay in: unshare {' '.join(options)}: "
                    f"{res.stderr.strip()}")
    return options


def run_on_an_overlay(wf, scratch, *args, overrides=None):
    """Runs Snakemake (wf.command) with wf's results/ an overlay (upper folder scratch/upper)
    in a mount namespace of its own, or pytest.skip naming why it cannot be mounted."""
    options = mount_namespace()
    script = " && ".join([
        f"mkdir -p {scratch}/lower {scratch}/upper {scratch}/work {wf.workdir}/results",
        f"mount -t overlay overlay -o lowerdir={scratch}/lower,upperdir={scratch}/upper,workdir={scratch}/work "
        f"{wf.workdir}/results",
        "exec " + shlex.join(wf.command(*args, overrides=overrides)),
    ])
    res = subprocess.run(["unshare", *options, "sh", "-c", script], capture_output=True, text=True, timeout=600)
    if res.returncode != 0 and res.stderr.startswith("mount:"):
        pytest.skip(f"cannot mount an overlay here: {res.stderr.strip()}")
    return res
