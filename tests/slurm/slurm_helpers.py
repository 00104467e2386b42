"""Helpers of the Slurm tests (a module of its own name: test directories share the name
`conftest`): why no one-host cluster can be started here, Slurm's queue and job completion
log, the runs' results, and the workflow run through the Slurm profile
(config/profiles/slurm)."""
import json
import os
import shutil
import subprocess
import sys
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLUSTER_SCRIPT = os.path.join(REPO, "scripts", "slurm-cluster.sh")
PROFILE = os.path.join(REPO, "config", "profiles", "slurm")
SMOKE = os.path.join(REPO, "config", "profiles", "smoke.yaml")
RUN_RESULTS = {"phases.jsonl", "write.jsonl", "compact.jsonl", "read.jsonl"}  # the run rules' outputs


def slurm_unavailable():
    """Why a one-host Slurm cluster cannot be started here, or None."""
    for tool in ("munged", "slurmctld", "slurmd", "sbatch"):
        if not shutil.which(tool):
            return f"{tool} is not installed (scripts/install-deps.sh installs munge and Slurm)"
    if os.geteuid() != 0:
        return "starting slurmd needs root"
    conf = "/etc/slurm/slurm.conf"
    if os.path.exists(conf) and not os.path.islink(conf):  # a link: a throw-away cluster's, the script decides
        return f"{conf} is this host's own Slurm configuration: not starting a test cluster beside it"
    return None


def queued_jobs():
    """(job id, state) of every job Slurm still has pending or running."""
    res = subprocess.run(["squeue", "--noheader", "--format", "%i %T"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return [tuple(line.split()) for line in res.stdout.splitlines() if line.strip()]


def jobcomp(path):
    """The job completion log (jobcomp/filetxt: there is no slurmdbd) as {job id: fields}."""
    jobs = {}
    with open(path) as f:
        for line in f:
            fields = dict(w.partition("=")[::2] for w in line.split() if "=" in w)
            if fields.get("JobId"):
                jobs[fields["JobId"]] = fields
    return jobs


def run_docs(workdir):
    """{run result file: its phase documents} under workdir/results/runs."""
    docs = {}
    for root, _, files in os.walk(os.path.join(workdir, "results", "runs")):
        for name in files:
            if name in RUN_RESULTS:
                path = os.path.join(root, name)
                with open(path) as f:
                    docs[path] = [json.loads(line) for line in f if line.strip()]
    return docs


def copy_profile(dest, **rule_runtime):
    """A copy of the Slurm profile in `dest` with other time limits (minutes) for some rules,
    as a site edits its own copy; returns its directory."""
    import yaml

    with open(os.path.join(PROFILE, "config.yaml")) as f:
        profile = yaml.safe_load(f)
    for rule, minutes in rule_runtime.items():
        profile["set-resources"][rule] = dict(profile["set-resources"][rule], runtime=minutes)
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(dest, "config.yaml"), "w") as f:
        yaml.safe_dump(profile, f)
    return dest


class SlurmWorkflow:
    """Snakemake on the smoke profile submitted through a Slurm workflow profile, in a scratch
    working directory, with `overrides` (a dict) as one more config file."""

    def __init__(self, workdir, profile=PROFILE, overrides=None):
        self.workdir, self.profile = str(workdir), profile
        self.configs = [SMOKE]
        if overrides:
            self.configs.append(os.path.join(self.workdir, "overrides.json"))
            with open(self.configs[-1], "w") as f:
                json.dump(overrides, f)

    def command(self, *args):
        return [sys.executable, "-m", "snakemake", *args, "-s", os.path.join(REPO, "Snakefile"), "--directory",
                self.workdir, "--workflow-profile", self.profile, "--configfile", *self.configs]

    def run(self, *args, timeout=900):
        return subprocess.run(self.command(*args), capture_output=True, text=True, timeout=timeout)

    def start(self, *args):
        return subprocess.Popen(self.command(*args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def path(self, *parts):
        return os.path.join(self.workdir, *parts)


def node_state(node):
    """Slurm's state of `node` (idle, down, mixed, ... ; '*' and other flags stripped)."""
    res = subprocess.run(["sinfo", "-h", "-N", "-n", node, "-o", "%T"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return res.stdout.strip().rstrip("*~#!%$@^-").lower()


def resume_node(node, timeout=120):
    """Brings `node` back into service and waits until it is idle. With ReturnToService=2
    (scripts/slurm-common.conf) a node set DOWN by hand returns by itself once its slurmd
    answers again, often before a RESUME could arrive, and Slurm then refuses the RESUME as
    an invalid state: so it is sent only while the node is still down, and a refusal counts
    as done when the node has meanwhile returned."""
    def idle():
        state = node_state(node)
        if state.startswith(("down", "drain", "fail")):
            res = subprocess.run(["scontrol", "update", f"NodeName={node}", "State=RESUME"], capture_output=True,
                                 text=True, timeout=60)
            assert res.returncode == 0 or not node_state(node).startswith(("down", "drain", "fail")), \
                f"scontrol could not resume {node}: {res.stderr.strip()}"
            return False
        return state == "idle"

    wait_for(idle, timeout, f"node {node} back in service")


def wait_for(predicate, timeout, what, proc=None):
    """Polls `predicate` until it returns something true; fails naming `what` after `timeout` s
    (or as soon as `proc` has exited)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"{what}: not within {timeout} s"
        assert proc is None or proc.poll() is None, f"{what}: snakemake exited first:\n{proc.stdout.read()[-4000:]}"
        time.sleep(0.2)
