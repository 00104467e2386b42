"""Both implementations on an existing Ceph cluster with authentication on (cephx), as a
site's cluster has it: a throw-away cluster started with scripts/ceph-cluster.sh --cephx
(its keys in a keyring its ceph.conf names) and given as rados.conf. Our core reads the
keyring through ceph.conf; the original's tools read only /tmp/ceph.conf, so the keyring
reaches them in CEPH_ARGS (core/bench/original_rados.py). Without the keyring the
original's run stops with one line naming it. The original is the build test_original.py's
run made (conftest original_smoke)."""
import csv
import json
import os
import shutil
import subprocess
import sys

import pytest

from workflow_helpers import BOTH, RADOS, REPO, Workflow

SCRIPT = os.path.join(REPO, "scripts", "ceph-cluster.sh")
ORIGINAL_RUNS_PY = os.path.join(REPO, "core", "bench", "original_runs.py")
PREFIX = "deltameta-cephx"


@pytest.fixture(scope="module")
def cephx_cluster(tmp_path_factory):
    """The ceph.conf of a throw-away cluster with cephx and the pools of both implementations."""
    if not shutil.which("ceph-mon"):
        pytest.skip("ceph-mon is not installed (scripts/install-deps.sh)")
    cluster = str(tmp_path_factory.mktemp("cephx-ceph"))
    res = subprocess.run(["bash", SCRIPT, "start", cluster, "--cephx", "--pool", "deltameta", "--pool", "test"],
                         capture_output=True, text=True, timeout=300)
    try:
        assert res.returncode == 0, res.stderr[-3000:]
        yield os.path.join(cluster, "ceph.conf")
    finally:
        subprocess.run(["bash", SCRIPT, "stop", cluster], capture_output=True, timeout=300)


def original_bin(original_smoke):
    with open(original_smoke.path("results", "original", "tools.json")) as f:
        built = json.load(f)
    if not built["rados"]:
        pytest.skip("the original was built without PDLFS_RADOS: librados-dev is not installed")
    return built["bin_dir"]


def test_the_cluster_refuses_a_client_without_the_keyring(cephx_cluster, tmp_path):
    bare = tmp_path / "no-keyring.conf"
    with open(cephx_cluster) as f:
        bare.write_text("".join(line for line in f if not line.startswith("keyring")))
    res = subprocess.run(["rados", "-c", str(bare), "-p", "test", "ls"], capture_output=True, text=True, timeout=120)
    assert res.returncode != 0
    with open(cephx_cluster) as f:
        assert "auth client required = cephx" in f.read()


def test_both_implementations_run_on_a_cluster_with_cephx(original_smoke, cephx_cluster, tmp_path):
    wf = Workflow(str(tmp_path), profile=RADOS)
    overrides = dict(BOTH, client_ranks=[2], repetitions=1,
                     original={"build": "installed", "bin_dir": original_bin(original_smoke)},
                     rados={"conf": cephx_cluster, "pool": "deltameta", "prefix": PREFIX})
    res = wf.run(overrides=overrides, timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    with open(wf.out("summary.csv"), newline="") as f:
        table = list(csv.DictReader(f))
    for impl in ("deltameta", "original"):
        mine = [r for r in table if r["implementation"] == impl]
        assert len(mine) == 7, impl  # 7 phases, one client count, one repetition
        for r in mine:
            assert r["storage"] == "rados" and int(r["errors"]) == 0 and int(r["ops"]) == int(r["expected_ops"]), r
    with open(wf.out("validation.json")) as f:
        assert json.load(f)["ok"] is True
    left = subprocess.run(["rados", "-c", cephx_cluster, "-p", "test", "ls"], capture_output=True, text=True,
                          timeout=120)
    assert left.returncode == 0 and f"_{PREFIX}_runs_original_" not in left.stdout


def test_the_original_without_the_keyring_stops_with_one_line_naming_it(original_smoke, cephx_cluster, tmp_path):
    bare = tmp_path / "no-keyring.conf"
    with open(cephx_cluster) as f:
        bare.write_text("".join(line for line in f if not line.startswith("keyring")))
    res = subprocess.run([sys.executable, ORIGINAL_RUNS_PY, "indexfs", "--bin", original_bin(original_smoke),
                          "--ranks", "1", "--servers", "1", "--n", "10", "--timeout", "120", "--work",
                          str(tmp_path / "work"), "--out", str(tmp_path / "out.jsonl"), "--log", str(tmp_path / "log"),
                          "--storage-root", f"rados://test/{PREFIX}", "--storage-base", str(tmp_path),
                          "--ceph-conf", str(bare)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("original_runs: rados -p test ls on the cluster of "), lines
    assert "its keyring, which must hold client.admin's key" in lines[0]
