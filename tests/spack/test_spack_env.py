"""The Spack route of README.md ("Spack"), for real: the project's spack.yaml (+mpi +snappy)
and spack/envs/rados/spack.yaml (+rados) concretize and install (the first with the core's
tests, --test=root), the installed tools pass runs 1-3, the workflow runs on the Spack
views (the +rados one with its stores in a throw-away Ceph cluster), and `spack develop`
builds the working tree.

Spack is the `spack` on PATH, set up as README.md says; without one, scripts/setup-spack.sh
sets one up offline in the test's scratch space from the release archives in
$DELTAMETA_UPSTREAM (default: ../shared/upstream beside the clone); without either, these
tests are skipped with that reason. Slow: 10 to 20 minutes on 2 cores. Everything Spack
writes (install tree, stages, caches, environments, its user settings where the test set
Spack up) goes to a temporary directory through a configuration scope of the test's own,
so neither earlier Spack runs nor the project tree matter. Every command has a time limit;
on expiry its whole process group is killed."""
import json
import os
import shutil
import subprocess
import sys

import pytest
import yaml

from spack_helpers import REPO, installed_prefix, run

RUNS_PY = os.path.join(REPO, "core", "bench", "runs.py")
TOOLS = ["deltameta_server", "deltameta_client", "deltameta_client_store", "deltameta_compactor",
         "deltameta_mdworkbench"]


def three_runs(bin_dir, work, ranks=2, n=500):
    """The seed guide's runs 1-3 (run 3: write, compaction, read) on the tools in `bin_dir`;
    every phase must perform exactly ranks x n operations with no error."""
    os.makedirs(work)
    log = os.path.join(work, "log.txt")
    origin, compacted = os.path.join(work, "r3", "origin"), os.path.join(work, "r3", "compacted")
    steps = [("indexfs", ["--servers", "1", "--work", os.path.join(work, "r1")]),
             ("indexfs-bulk", ["--servers", "1", "--work", os.path.join(work, "r2")]),
             ("deltafs-write", ["--work", os.path.join(work, "r3"), "--origin", origin]),
             ("deltafs-compact", ["--servers", "2", "--work", os.path.join(work, "r3"), "--origin", origin,
                                  "--compacted", compacted]),
             ("deltafs-read", ["--servers", "2", "--work", os.path.join(work, "r3"), "--compacted", compacted])]
    phases = []
    for name, args in steps:
        out = os.path.join(work, name + ".jsonl")
        run([sys.executable, RUNS_PY, name, "--bin", bin_dir, "--ranks", str(ranks), "--n", str(n), "--out", out,
             "--log", log, "--timeout", "120", *args], timeout=300)
        with open(out) as f:
            docs = [json.loads(line) for line in f]
        for d in docs:
            assert d["ops"] == ranks * n and d["errors"]["total"] == 0, (name, d["phase"], d["ops"], d["errors"])
            phases.append((name, d["phase"]))
    assert phases == [("indexfs", "insert"), ("indexfs", "lstat"), ("indexfs-bulk", "insert"),
                      ("indexfs-bulk", "lstat"), ("deltafs-write", "insert"), ("deltafs-compact", "compaction"),
                      ("deltafs-read", "lstat")]
    return docs[0]["build"]


def assert_tools(bin_dir):
    for tool in TOOLS:
        assert os.access(os.path.join(bin_dir, tool), os.X_OK), f"{tool} missing in {bin_dir}"


def has_rados(bin_dir):
    """Whether the tools of `bin_dir` were built with RADOS support (librados itself is
    loaded only when a rados:// location is used, so ldd does not show it)."""
    r = subprocess.run([os.path.join(bin_dir, "deltameta_storage"), "ls", "rados://p/x"], capture_output=True,
                       text=True, timeout=60, env=dict(os.environ, CEPH_CONF="/nonexistent"))
    assert r.returncode != 0, r
    return "needs RADOS support" not in r.stderr


@pytest.fixture(scope="module")
def default_env(spack):
    """spack.yaml concretized and installed with the core's tests (--test=root)."""
    env = spack.env("env-default", os.path.join(REPO, "spack.yaml"))
    out = spack("-e", env, "concretize", "--test=root")
    assert "Error constructing repository" not in out, out  # e.g. builtin not usable offline
    spack("-e", env, "install", "--test=root", timeout=2400)
    return env


def test_default_env_installs_and_passes_the_three_runs(spack, default_env, tmp_path):
    prefix = installed_prefix(spack, default_env)
    with open(os.path.join(prefix, ".spack", "install-time-test-log.txt")) as f:
        test_log = f.read()
    assert "100% tests passed" in test_log and "integration.test_three_runs" in test_log, test_log[-2000:]
    view_bin = os.path.join(default_env, ".spack-env", "view", "bin")
    assert_tools(view_bin)
    assert not has_rados(view_bin)
    build = three_runs(view_bin, str(tmp_path / "runs"))
    assert build["version"] == "0.4.0" and build["snappy"] and build["mpi"], build


def snakemake(work, profile, bin_dir):
    """The workflow in `work` on `profile`, with the tools of `bin_dir` (core.build: installed)."""
    pytest.importorskip("snakemake")
    overrides = os.path.join(str(work), "spack-view.json")
    with open(overrides, "w") as f:
        json.dump({"client_ranks": [2], "repetitions": 1, "core": {"build": "installed", "bin_dir": bin_dir}}, f)
    run([sys.executable, "-m", "snakemake", "-s", os.path.join(REPO, "Snakefile"), "--directory", str(work),
         "--cores", "2", "--configfile", os.path.join(REPO, "config", "profiles", profile), overrides], timeout=900)
    with open(os.path.join(str(work), "results", "core", "tools.json")) as f:
        assert json.load(f)["bin_dir"] == bin_dir
    name = os.path.splitext(profile)[0]  # every profile's conclusions go to results/<its name>/
    with open(os.path.join(str(work), "results", name, "validation.json")) as f:
        validation = json.load(f)
    assert validation["ok"] and validation["runs_checked"] > 0, validation


def test_workflow_runs_from_the_spack_view(default_env, tmp_path):
    snakemake(tmp_path, "smoke.yaml", os.path.join(default_env, ".spack-env", "view", "bin"))


@pytest.fixture(scope="module")
def rados_env(spack):
    """spack/envs/rados/spack.yaml concretized and installed."""
    if not os.path.exists("/usr/include/rados/librados.h"):
        pytest.skip("librados-dev is not installed (scripts/install-deps.sh installs it)")
    env = spack.env("env-rados", os.path.join(REPO, "spack", "envs", "rados", "spack.yaml"))
    spack("-e", env, "concretize")
    spack("-e", env, "install", timeout=2400)
    return env


def test_rados_env_installs_and_passes_the_three_runs(rados_env, tmp_path):
    view_bin = os.path.join(rados_env, ".spack-env", "view", "bin")
    assert_tools(view_bin)
    assert has_rados(view_bin)
    three_runs(view_bin, str(tmp_path / "runs"))


def test_workflow_on_rados_runs_from_the_rados_view(rados_env, tmp_path):
    """config/profiles/rados.yaml: every store in a throw-away Ceph cluster."""
    if not (shutil.which("ceph-mon") and shutil.which("ceph-osd")):
        pytest.skip("ceph-mon and ceph-osd are not installed (scripts/install-deps.sh installs them)")
    snakemake(tmp_path, "rados.yaml", os.path.join(rados_env, ".spack-env", "view", "bin"))


def test_spack_develop_builds_the_working_tree(spack, tmp_path):
    env = spack.env("env-develop", os.path.join(REPO, "spack.yaml"))
    spack("-e", env, "change", "deltameta@main")
    spack("-e", env, "develop", "--path", REPO, "deltameta@=main")
    top_before = set(os.listdir(REPO))
    revision = run(["git", "describe", "--always", "--dirty", "--abbrev=12"], 60, cwd=os.path.join(REPO, "core"))
    spack("-e", env, "install", timeout=2400)
    new = [e for e in set(os.listdir(REPO)) - top_before if e.startswith(("build-", "spack-"))]
    assert not new, f"spack develop left {new} in the working tree"
    prefix = installed_prefix(spack, env)
    with open(os.path.join(prefix, ".spack", "spec.json")) as f:
        spec = json.load(f)["spec"]["nodes"][0]
    assert spec["name"] == "deltameta" and spec["parameters"]["dev_path"] == REPO, spec["parameters"]
    view_bin = os.path.join(env, ".spack-env", "view", "bin")
    build = three_runs(view_bin, str(tmp_path / "runs"), n=200)
    # Built from the working tree: its commit (and "-dirty" if it had local changes then).
    assert build["git_revision"].split("-dirty")[0] == revision.strip().split("-dirty")[0], build


def test_rados_env_has_the_default_envs_externals():
    """spack/envs/rados/spack.yaml repeats spack.yaml's externals (Spack cannot include them
    from a file in a way that survives `spack env create`): they must not drift apart."""
    with open(os.path.join(REPO, "spack.yaml")) as f:
        default = yaml.safe_load(f)["spack"]
    with open(os.path.join(REPO, "spack", "envs", "rados", "spack.yaml")) as f:
        rados = yaml.safe_load(f)["spack"]
    rados_packages = dict(rados["packages"])
    assert rados_packages.pop("librados")["externals"][0]["spec"].startswith("librados@")
    assert rados_packages == default["packages"]
    assert rados["repos"]["builtin"] == default["repos"]["builtin"]
    assert rados["specs"] == [s.replace("~rados", "+rados") for s in default["specs"]]
