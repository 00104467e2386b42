"""What the Spack tests run on the tools of an installed view: the seed guide's runs 1-3
through core/bench/runs.py with exact counts, and the workflow (core.build: installed) on a
profile; what they check of the tools themselves (all there, built with RADOS or not); and
the workflow's build rule on them where it must refuse them."""
import json
import os
import subprocess
import sys

import pytest

from spack_helpers import REPO, run

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


def snakemake(work, profile, bin_dir, config=None):
    """The workflow in `work` on `profile`, with the tools of `bin_dir` (core.build: installed)
    and the configuration `config` on top."""
    pytest.importorskip("snakemake")
    overrides = os.path.join(str(work), "spack-view.json")
    with open(overrides, "w") as f:
        json.dump({"client_ranks": [2], "repetitions": 1, "core": {"build": "installed", "bin_dir": bin_dir},
                   **(config or {})}, f)
    run([sys.executable, "-m", "snakemake", "-s", os.path.join(REPO, "Snakefile"), "--directory", str(work),
         "--cores", "2", "--configfile", os.path.join(REPO, "config", "profiles", profile), overrides], timeout=900)
    with open(os.path.join(str(work), "results", "core", "tools.json")) as f:
        assert json.load(f)["bin_dir"] == bin_dir
    name = os.path.splitext(profile)[0]  # every profile's conclusions go to results/<its name>/
    with open(os.path.join(str(work), "results", name, "validation.json")) as f:
        validation = json.load(f)
    assert validation["ok"] and validation["runs_checked"] > 0, validation


def build_rule_fails(bin_dir, work, profile, config):
    """Rule build_core alone, on `profile` with `config` on top, on the tools of `bin_dir`
    (core.build: installed): it must fail; returns its stderr."""
    pytest.importorskip("snakemake")
    overrides = os.path.join(str(work), "view.json")
    with open(overrides, "w") as f:
        json.dump(dict(config, core={"build": "installed", "bin_dir": bin_dir}), f)
    res = subprocess.run([sys.executable, "-m", "snakemake", "-s", os.path.join(REPO, "Snakefile"), "--directory",
                          str(work), "--cores", "2", "--configfile", os.path.join(REPO, "config", "profiles", profile),
                          overrides, "--until", "build_core"], capture_output=True, text=True, timeout=600)
    assert res.returncode != 0, res.stdout[-3000:]
    return res.stderr
