"""The authors' original prototype on RADOS stores (storage: rados): the RADOS profile on both
implementations, on a throw-away Ceph cluster this test starts (scripts/ceph-cluster.sh, pools
deltameta and test) and names in rados.conf, validates with exact counts; when the run ends
nothing of the original's is left in its pool, while objects it did not make stay; the
placeholder /tmp/ceph.conf is gone; and a configuration whose original cannot reach RADOS is
refused with one line. The original is the build test_original.py's run made (conftest
original_smoke)."""
import csv
import fcntl
import glob
import json
import os
import shutil
import subprocess
import sys

import original_rados
import pytest
from store_markers import MARKER

from workflow_helpers import BOTH, RADOS, REPO, Workflow, ceph_daemons


SCRIPT = os.path.join(REPO, "scripts", "ceph-cluster.sh")
ORIGINAL_RADOS = os.path.join(REPO, "core", "bench", "original_rados.py")
PREFIX = "deltameta-results"
# Objects the run did not make: another program's, and one below the project's prefix but outside
# the original's runs (runs/original), which no cleanup may touch.
FOREIGN = ["someone-elses-object", f"_{PREFIX}_runs_deltafs_rados_c1_r0_1", f"_{PREFIX}_original_r0_1"]
ORIGINAL_OBJECTS = f"_{PREFIX}_runs_original_"


def pool_objects(conf, pool):
    res = subprocess.run(["rados", "-c", conf, "-p", pool, "ls"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return sorted(res.stdout.split())


def put(conf, pool, name):
    res = subprocess.run(["rados", "-c", conf, "-p", pool, "put", name, "-"], input="x", capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0, res.stderr


@pytest.fixture(scope="session")
def original_ceph(tmp_path_factory):
    """A throw-away cluster with the pools of both implementations, and the foreign objects."""
    if not shutil.which("ceph-mon"):
        pytest.skip("ceph-mon is not installed (scripts/install-deps.sh)")
    cluster = str(tmp_path_factory.mktemp("original-ceph"))
    res = subprocess.run(["bash", SCRIPT, "start", cluster, "--pool", "deltameta", "--pool", "test"],
                         capture_output=True, text=True, timeout=300)
    try:
        assert res.returncode == 0, res.stderr[-3000:]
        conf = os.path.join(cluster, "ceph.conf")
        for name in FOREIGN:
            put(conf, "test", name)
        yield conf
    finally:
        subprocess.run(["bash", SCRIPT, "stop", cluster], capture_output=True, timeout=300)


@pytest.fixture(scope="session")
def original_rados_run(original_smoke, original_ceph, tmp_path_factory):
    """The RADOS profile on both implementations (the original as original_smoke built it) on
    the cluster `original_ceph`; wf.left: the objects of its pool test after the run."""
    with open(original_smoke.path("results", "original", "tools.json")) as f:
        built = json.load(f)
    if not built["rados"]:
        pytest.skip("the original was built without PDLFS_RADOS: librados-dev is not installed")
    wf = Workflow(tmp_path_factory.mktemp("original-rados"), profile=RADOS)
    overrides = dict(BOTH, original={"build": "installed", "bin_dir": built["bin_dir"]},
                     rados={"conf": original_ceph, "pool": "deltameta", "prefix": PREFIX})
    res = wf.run(overrides=overrides, timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    wf.left = pool_objects(original_ceph, "test")
    return wf


def test_both_implementations_run_on_rados_with_exact_counts(original_rados_run):
    with open(original_rados_run.out("summary.csv"), newline="") as f:
        table = list(csv.DictReader(f))
    for impl in ("deltameta", "original"):
        mine = [r for r in table if r["implementation"] == impl]
        assert len(mine) == 28, impl  # 7 phases x 2 client counts x 2 repetitions
        for r in mine:
            assert r["storage"] == "rados" and int(r["errors"]) == 0 and int(r["ops"]) == int(r["expected_ops"]), r
    with open(original_rados_run.out("validation.json")) as f:
        assert json.load(f)["phases_checked"] == 56
    for path in glob.glob(original_rados_run.path("results", "runs", "original", "**", "*.jsonl"), recursive=True):
        with open(path) as f:
            for line in f:
                stores = json.loads(line)["storage"]
                assert stores["backend"] == "rados" and stores["stores"], path
                assert all(uri.startswith(f"rados://test/{PREFIX}/runs/original/") for uri in stores["stores"].values())
    with open(original_rados_run.out("provenance.json")) as f:
        p = json.load(f)
    assert p["original"]["rados"] is True and p["storage"]["original_root"] == f"rados://test/{PREFIX}"


def test_nothing_of_the_originals_is_left_and_nothing_else_was_removed(original_rados_run):
    assert not [name for name in original_rados_run.left if name.startswith(ORIGINAL_OBJECTS)]
    assert set(FOREIGN) <= set(original_rados_run.left)
    with open(original_rados_run.path("results", "logs", "ceph-cluster.log")) as f:
        swept = [line for line in f if "of the original's runs" in line]
    assert len(swept) == 1 and not swept[0].startswith("removed 0 "), swept
    assert not glob.glob(original_rados_run.path("results", "runs", "original", "**", MARKER), recursive=True)
    assert ceph_daemons(original_rados_run.workdir) == []  # the cluster is the test's, not the workflow's


def test_a_sweep_removes_only_the_originals_objects(original_ceph):
    ceph = original_ceph
    made = [f"{ORIGINAL_OBJECTS}deltafs_rados_c1-n5_rep1_origin_r0_{n}" for n in ("1", "MANIFEST-000002")]
    for name in made:
        put(ceph, "test", name)
    res = subprocess.run([sys.executable, ORIGINAL_RADOS, "sweep", ceph, PREFIX], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("removed 2 objects of the original's runs")
    left = pool_objects(ceph, "test")
    assert not set(made) & set(left) and set(FOREIGN) <= set(left)


def test_the_placeholder_conf_lasts_while_a_run_holds_it_and_goes_with_the_last():
    with original_rados.FixedConf():
        with original_rados.FixedConf():
            pass
        assert os.path.isfile(original_rados.CONF_PATH)  # the outer run still holds it
    if os.path.exists(original_rados.CONF_PATH):  # someone else's, or held by another run on this machine
        with open(original_rados.CONF_PATH) as f:
            if f.read() == original_rados.PLACEHOLDER:
                with pytest.raises(BlockingIOError):
                    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_a_rank_execs_its_tool_holding_the_placeholder_and_the_host_drops_it_after():
    if os.path.exists(original_rados.CONF_PATH):
        pytest.skip(f"{original_rados.CONF_PATH} is there already (someone else's, or another run's)")
    # What the tool sees: the placeholder, locked by its own open file (a second lock fails).
    probe = (f"cat {original_rados.CONF_PATH}; flock -n -x {original_rados.CONF_PATH} true || echo held; "
             "ls -l /proc/$$/fd | grep -c ceph.conf")
    res = subprocess.run([sys.executable, ORIGINAL_RADOS, "exec-held", "/bin/sh", "-c", probe],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [original_rados.PLACEHOLDER.strip(), "held", "1"], res.stdout
    assert os.path.isfile(original_rados.CONF_PATH)  # the tool is gone; its host drops it
    res = subprocess.run([sys.executable, ORIGINAL_RADOS, "drop-placeholder"], capture_output=True, text=True,
                         timeout=60)
    assert res.returncode == 0 and not os.path.exists(original_rados.CONF_PATH), res.stderr
    # Someone else's /tmp/ceph.conf stays.
    with open(original_rados.CONF_PATH, "w") as f:
        f.write("[global]\n")
    try:
        subprocess.run([sys.executable, ORIGINAL_RADOS, "drop-placeholder"], check=True, timeout=60)
        assert os.path.isfile(original_rados.CONF_PATH)
    finally:
        os.unlink(original_rados.CONF_PATH)


def test_rados_stores_across_hosts_have_the_conf_on_each(original_smoke, original_ceph, tmp_path):
    if os.path.exists(original_rados.CONF_PATH):
        pytest.skip(f"{original_rados.CONF_PATH} is there already (someone else's, or another run's)")
    with open(original_smoke.path("results", "original", "tools.json")) as f:
        built = json.load(f)
    if not built["rados"]:
        pytest.skip("the original was built without PDLFS_RADOS: librados-dev is not installed")
    hostfile = tmp_path / "hostfile"  # two names of this host: MPICH starts ranks on either without ssh
    hostfile.write_text("localhost\n127.0.0.1\n")
    res = subprocess.run([sys.executable, os.path.join(REPO, "core", "bench", "original_runs.py"), "indexfs",
                          "--bin", built["bin_dir"], "--hostfile", str(hostfile), "--ranks", "2", "--servers", "2",
                          "--n", "300", "--timeout", "120", "--work", str(tmp_path / "work"),
                          "--storage-root", f"rados://test/{PREFIX}-hosts", "--storage-base", str(tmp_path),
                          "--ceph-conf", original_ceph, "--out", str(tmp_path / "indexfs.jsonl"),
                          "--log", str(tmp_path / "run.log")], capture_output=True, text=True, timeout=400)
    assert res.returncode == 0, res.stderr[-3000:]
    with open(tmp_path / "indexfs.jsonl") as f:
        for d in map(json.loads, f):
            assert d["ops"] == 600 and d["errors"]["total"] == 0 and d["placement"]["hosts"] == 2, d
    commands = (tmp_path / "work" / "jobs" / "commands.log").read_text().splitlines()
    assert all(f"{ORIGINAL_RADOS} exec-held " in line for line in commands if "mpiexec" in line), commands
    assert not os.path.exists(original_rados.CONF_PATH)  # every host's placeholder dropped
    assert not [o for o in pool_objects(original_ceph, "test") if o.startswith(f"_{PREFIX}-hosts_")]


def test_an_original_that_cannot_reach_rados_is_refused_with_one_line(workflow_in, tmp_path):
    # as a user other than client.admin, which its tools cannot be told
    res = workflow_in.run("--dry-run", overrides={"implementations": ["original"], "storage": "rados"},
                          env={"DELTAMETA_RADOS_ID": "someone"})
    assert res.returncode != 0
    lines = [x for x in (res.stdout + res.stderr).splitlines() if "the original cannot keep its stores in RADOS" in x]
    assert len(lines) == 1 and "connect as client.admin" in lines[0] and "use storage: posix" in lines[0]
    # tools built without PDLFS_RADOS: real executables that link no librados, under the tools' names
    for tool in ("deltafs_bm_svr", "deltafs_bm_cli", "parallel_compactor"):
        shutil.copy(shutil.which("mpiexec.mpich") or shutil.which("mpiexec"), tmp_path / tool)
    res = workflow_in.run("--dry-run", overrides={"implementations": ["original"], "storage": "rados",
                                                  "original": {"build": "installed", "bin_dir": str(tmp_path)}})
    assert res.returncode != 0
    assert f"the tools in original.bin_dir {tmp_path} were built without PDLFS_RADOS" in res.stdout + res.stderr
