"""Helpers of the Docker tests (a module of its own name: test directories share the name
`conftest`): the images' tags (the deltameta image with the original prototype where its
release archive is in the upstream folder, $DELTAMETA_UPSTREAM, as tests/workflow finds
it), why no Docker engine can be used, a command that must succeed, the image's build
(docker/build-image.sh), a three-node cluster (docker/cluster.sh) for a test module, and a
scratch git repository of this working tree."""
import contextlib
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import warnings

from workflows.launch import original_source

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOCKER = os.path.join(REPO, "docker")
# The tags the session builds; DELTAMETA_TEST_BASE and DELTAMETA_TEST_IMAGE give others, so
# that test sessions of several clones on one machine do not build over each other's images.
BASE = os.environ.get("DELTAMETA_TEST_BASE") or "deltameta-base:bookworm"
ARCHIVE = os.path.join(original_source.upstream_dir(REPO), original_source.ARCHIVE)
ORIGINAL = os.path.isfile(ARCHIVE)  # whether the session's image holds the original prototype
IMAGE = os.environ.get("DELTAMETA_TEST_IMAGE") or ("deltameta:original-test" if ORIGINAL else "deltameta:test")


def docker_unavailable():
    """Why Docker cannot be used here, or None."""
    if not shutil.which("docker"):
        return "docker is not installed"
    res = subprocess.run(["docker", "info"], capture_output=True, text=True)
    return None if res.returncode == 0 else "no Docker engine answers (docker info failed)"


def run(*cmd, timeout=900, check=True, **kw):
    res = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout, **kw)
    if check:
        assert res.returncode == 0, (f"{' '.join(cmd)} exited {res.returncode}:\n{res.stdout[-3000:]}\n"
                                     f"{res.stderr[-3000:]}")
    return res


def build_image():
    """docker/build-image.sh for the session's image (IMAGE), with the archive where it is."""
    return run("bash", os.path.join(DOCKER, "build-image.sh"), "--base", BASE, "--tag", IMAGE,
               *(["--original", ARCHIVE] if ORIGINAL else []), timeout=2400)


CLUSTER = os.path.join(DOCKER, "cluster.sh")
RUN_RESULTS = {"phases.jsonl", "write.jsonl", "compact.jsonl", "read.jsonl"}  # the run rules' outputs


class Cluster:
    """One Compose project of docker/cluster.sh: `cluster(*args)` runs a cluster.sh command,
    `out` is the host folder mounted at /out."""

    def __init__(self, project, image, out):
        self.project, self.out = project, out
        self.env = dict(os.environ, DELTAMETA_IMAGE=image, DELTAMETA_CLUSTER=project)

    def __call__(self, *args, check=True, timeout=900):
        res = run("bash", CLUSTER, *args, check=False, timeout=timeout, env=self.env)
        if check:
            assert res.returncode == 0, (f"cluster.sh {' '.join(args)} exited {res.returncode}:\n"
                                         f"{res.stdout[-3000:]}\n{res.stderr[-3000:]}\n{self.state()}"
                                         f"{self.logs_named(res.stdout + res.stderr)}")
        return res

    def logs_named(self, output):
        """The end of every log a failed Snakemake job names ("log: A, B (check log file(s) for
        error details)"; paths in /out or relative to it, the workflow's folder), read from
        the host folder mounted there: the scratch folder goes when the cluster does."""
        shown = ""
        for group in re.findall(r"log: (.+?) \(check log file\(s\) for error", output):
            for path in group.split(", "):
                host = os.path.join(self.out, os.path.relpath(path, "/out") if path.startswith("/out/") else path)
                try:
                    with open(host, errors="replace") as f:
                        shown += f"\n--- the end of {path} ---\n{f.read()[-3000:]}"
                except OSError as e:
                    shown += f"\n--- {path}: {e.strerror} ---"
        return shown

    def state(self):
        """What a failed command leaves to read: the head's view of Ceph's monitors and OSDs,
        and the space left where the cluster keeps its state."""
        probe = ("for c in 'mon stat' 'osd stat' 'osd tree'; do echo \"ceph $c:\"; "
                 "timeout 20 ceph -c /cluster/ceph/ceph.conf --connect-timeout 15 $c 2>&1; done; df -h /cluster /out")
        res = self("exec", "sh", "-c", probe, check=False, timeout=120)
        return "the cluster's state:\n" + res.stdout[-2000:] + res.stderr[-500:]

    def start(self, *args):
        """cluster.sh ARGS in the background, its output collected."""
        return subprocess.Popen(["bash", CLUSTER, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, env=self.env)

    def containers(self):
        return sorted(run("docker", "ps", "--filter", f"label=com.docker.compose.project={self.project}",
                          "--format", "{{.Names}}").stdout.split())

    def other_nodes(self):
        """The containers of the nodes other than the head."""
        return [n for n in self.containers() if "node_" in n.replace("-", "_")]

    def ready_nodes(self):
        return int(self("exec", "sh", "-c", "ls /cluster/ready | wc -l").stdout.strip())

    def objects(self):
        """Containers, networks and volumes of the project."""
        label = f"label=com.docker.compose.project={self.project}"
        found = []
        for kind in (["ps", "-a"], ["network", "ls"], ["volume", "ls"]):
            found += run("docker", *kind, "-q", "--filter", label).stdout.split()
        return found

    def run_docs(self):
        """{path: [JSON document per phase]} of every finished run under out/results/runs."""
        docs = {}
        for path in glob.glob(os.path.join(self.out, "results", "runs", "**", "*.jsonl"), recursive=True):
            if os.path.basename(path) in RUN_RESULTS:
                with open(path) as f:
                    docs[path] = [json.loads(line) for line in f if line.strip()]
        return docs


@contextlib.contextmanager
def three_node_cluster(project, image):
    """A three-node cluster of `project`, its results in a scratch folder owned by uid 1000;
    removed afterwards, and nothing of the project left behind."""
    out = tempfile.mkdtemp(prefix=f"{project}-", dir="/tmp")
    os.chown(out, 1000, 1000)
    cluster = Cluster(project, image, out)
    cluster("down")
    try:
        first = cluster("up", "--nodes", "3", "--out", out, timeout=300, check=False)
        if first.returncode != 0:
            # Once seen on CI's machine only, for the first cluster of a test session: the
            # start-up report goes into the warnings summary, and one more start is tried.
            warnings.warn(f"{project}: the first start failed, starting again:\n{first.stdout}{first.stderr}",
                          stacklevel=2)
            cluster("down")
            cluster("up", "--nodes", "3", "--out", out, timeout=300)
        yield cluster
    finally:
        cluster("down", timeout=300)
        shutil.rmtree(out, ignore_errors=True)
    assert cluster.objects() == []


GIT_ID = {"GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@localhost",
          "GIT_COMMITTER_NAME": "test", "GIT_COMMITTER_EMAIL": "test@localhost"}


def git(work, *args):
    return run("git", "-C", str(work), *args, env=dict(os.environ, **GIT_ID)).stdout


def scratch_repo(dest):
    """A git repository at `dest` (a pathlib.Path) of this working tree's tracked and new (not
    ignored) files, committed."""
    files = subprocess.run(["git", "-C", REPO, "ls-files", "-co", "--exclude-standard", "-z"], capture_output=True,
                           check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        src, dst = os.path.join(REPO, name), dest / name
        if os.path.isfile(src):
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(open(src, "rb").read())
            os.chmod(dst, os.stat(src).st_mode)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", "release")
    return dest
