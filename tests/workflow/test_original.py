"""The authors' original prototype as a dependency: built by the workflow from its release
archive (the shared upstream folder, $DELTAMETA_UPSTREAM; skipped naming it when the archive
is not there), run beside our core on the smoke scale, validated, drawn, its claims checked
apart and compared in the fidelity table; and every way its source can be wrong stopped with
one line and nothing half-built."""
import csv
import glob
import json
import os
import subprocess
import sys
import tarfile

import yaml

from workflow_helpers import ARCHIVE, BOTH, BUILT, NO_MDWB, REPO, need_archive, tools_bin

from workflows.launch import original_source
from workflows.registry import DESIGNS

ORIGINAL_RUNS_PY = os.path.join(REPO, "core", "bench", "original_runs.py")
with open(os.path.join(REPO, "config", "config.yaml")) as _f:
    SHA256 = yaml.safe_load(_f)["original"]["sha256"]  # the release's, as the default configuration pins it


def rows(wf):
    with open(wf.out("summary.csv"), newline="") as f:
        return list(csv.DictReader(f))


def test_the_original_is_built_from_its_checked_release_and_recorded(original_smoke):
    with open(original_smoke.path("results", "original", "tools.json")) as f:
        tools = json.load(f)
    assert tools["commit"] == original_source.COMMIT and tools["sha256"] == SHA256
    assert tools["source"] == os.path.abspath(ARCHIVE)
    assert "-DDELTAFS_MPI=ON" in tools["cmake"] and "-DPDLFS_SNAPPY=ON" in tools["cmake"]
    assert tools["rados"] == ("-DPDLFS_RADOS=ON" in tools["cmake"])  # one build for posix and RADOS stores
    assert "BSD-3-Clause" in tools["licence"]
    assert sorted(os.listdir(tools["bin_dir"])) == ["deltafs_bm_cli", "deltafs_bm_svr", "parallel_compactor"]
    assert not glob.glob(original_smoke.path("results", "original", ".staging-*"))
    with open(original_smoke.out("provenance.json")) as f:
        assert json.load(f)["original"]["commit"] == original_source.COMMIT


def test_every_design_runs_on_both_implementations_with_exact_counts(original_smoke):
    table = rows(original_smoke)
    designs = {("indexfs", "insert"), ("indexfs", "lstat"), ("indexfs-bulk", "insert"), ("indexfs-bulk", "lstat"),
               ("deltafs", "insert"), ("deltafs", "compaction"), ("deltafs", "lstat")}
    for impl in ("deltameta", "original"):
        mine = [r for r in table if r["implementation"] == impl]
        assert {(r["system"], r["phase"]) for r in mine} == designs, impl
        assert len(mine) == 28, impl  # 7 phases x 2 client counts x 2 repetitions
        for r in mine:
            assert int(r["errors"]) == 0 and int(r["ops"]) == int(r["expected_ops"]), r
            assert float(r["throughput_mops"]) > 0
    original = [r for r in table if r["implementation"] == "original"]
    # its compactor and read-only servers run with as many ranks as wrote
    assert all(r["servers"] == r["client_ranks"] for r in original if r["phase"] == "compaction")
    assert all(r["lat_median_us"] == "" and float(r["cpu_clients_s"]) >= 0 for r in original)
    # CPU sampled from /proc; the DeltaFS writers and the compactor have no servers
    assert all(float(r["cpu_servers_s"]) == 0 for r in original if r["phase"] in ("compaction",) or
               (r["system"], r["phase"]) == ("deltafs", "insert"))
    with open(original_smoke.out("validation.json")) as f:
        assert json.load(f)["phases_checked"] == 56


def test_claims_are_checked_on_each_implementation_apart(original_smoke):
    with open(original_smoke.out("claims.json")) as f:
        claims = json.load(f)
    assert claims["implementation"] == "deltameta" and claims["original"]["implementation"] == "original"
    theirs = {c["id"]: c for c in claims["original"]["claims"]}
    assert theirs["insert-latency"]["status"] == "not tested"
    assert "no latency quantiles" in theirs["insert-latency"]["reason"]
    for measured in ("insert-throughput", "cpu-per-create"):  # checked on the original's own rows and environment
        assert theirs[measured]["status"] != "not tested" and len(theirs[measured]["per_client_ranks"]) == 2
        assert theirs[measured]["environment"] == "recorded"
    with open(original_smoke.out("claims.md")) as f:
        assert "# Claims on the authors' original prototype" in f.read()


def test_the_fidelity_table_compares_every_phase_and_claim(original_smoke):
    with open(original_smoke.out("fidelity.csv"), newline="") as f:
        table = list(csv.DictReader(f))
    assert len([r for r in table if r["kind"] == "phase"]) == 14  # 7 phases x 2 client counts
    assert {r["what"] for r in table if r["kind"] == "claim"} == {
        "insert-throughput", "bulk-insertion", "compaction-vs-write", "lstat-read-only-servers", "cpu-per-create"}
    for r in table:
        q = float(r["ours"]) / float(r["original"])
        assert abs(float(r["ours_over_original"]) - q) < 1e-9 * q
        assert r["agrees"] == str(1 / 3 <= q <= 3)
    with open(original_smoke.out("fidelity.md")) as f:
        text = f.read()
    assert "agree within 3x either way" in text and "comparisons agree" in text
    for name in ("fidelity", "insert_throughput", "end_to_end_time"):
        assert os.path.getsize(original_smoke.out("figures", f"{name}.png")) > 10_000


def test_the_side_by_side_benchmark_runs_the_workflows_build(original_smoke, tmp_path):
    res = subprocess.run([sys.executable, os.path.join(REPO, "core", "bench", "side_by_side.py"), "--original",
                          tools_bin(original_smoke),
                          "--bin", os.path.join(REPO, "build", "core"), "--n", "200", "--ranks", "2", "--readers", "2",
                          "--info-port", "0", "--json", str(tmp_path / "sbs.json"), "--timeout", "120"],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    with open(tmp_path / "sbs.json") as f:
        phases = json.load(f)["phases"]
    assert len(phases) == 7 and all(p["original"]["median"] > 0 and p["ratio"] > 0 for p in phases)


def test_the_original_alone_runs_to_its_claims_and_report_without_the_projection(original_smoke, workflow_in):
    """implementations: [original]: every design run, validated, drawn and its claims checked;
    the projection, a model of our core's costs, is left out (it once failed on no rows of ours)."""
    overrides = dict(BUILT, **NO_MDWB, implementations=["original"], systems=list(DESIGNS), client_ranks=[2],
                     repetitions=1, original={"build": "installed", "bin_dir": tools_bin(original_smoke)})
    res = workflow_in.run(overrides=overrides, timeout=1200)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert {r["implementation"] for r in rows(workflow_in)} == {"original"}
    assert not glob.glob(workflow_in.out("projection*")) and not glob.glob(workflow_in.out("figures", "projection*"))
    with open(workflow_in.out("claims.json")) as f:
        assert json.load(f)["implementation"] == "original"
    assert os.path.getsize(workflow_in.out("figures", "insert_throughput.png")) > 10_000
    rep = workflow_in.run("--report", "results/smoke/report.html", overrides=overrides)
    assert rep.returncode == 0, rep.stderr[-3000:]


def build_only(workflow_in, **original):
    """Runs the original's build rule alone with `original` over the default settings."""
    settings = dict(build="source", source="auto", sha256=SHA256, bin_dir="")
    settings.update(original)
    return workflow_in.run("--until", "build_original", overrides=dict(BOTH, original=settings), timeout=600)


def one_line_and_nothing_built(workflow_in, res, expected):
    assert res.returncode != 0
    lines = [line for line in (res.stdout + res.stderr).splitlines() if line.startswith("build_original: ")]
    assert len(lines) == 1 and expected in lines[0], res.stderr[-3000:]
    assert not os.path.exists(workflow_in.path("results", "original", "install"))
    assert not glob.glob(workflow_in.path("results", "original", ".staging-*"))
    return lines[0]


def test_a_missing_source_is_named_with_the_fix(workflow_in):
    res = build_only(workflow_in, source=os.path.join(str(workflow_in.workdir), "no-such.tar.gz"))
    line = one_line_and_nothing_built(workflow_in, res, "no-such.tar.gz: no such file or directory")
    assert "give the release archive" in line


def test_a_corrupt_archive_is_refused(workflow_in, tmp_path):
    need_archive()
    broken = tmp_path / "deltafs-proto-2021.5.tar.gz"
    with open(ARCHIVE, "rb") as f:
        broken.write_bytes(f.read()[:200_000])  # cut short
    res = build_only(workflow_in, source=str(broken))
    one_line_and_nothing_built(workflow_in, res, "not a readable .tar.gz")


def test_a_wrong_checksum_is_refused_before_anything_is_built(workflow_in):
    need_archive()
    res = build_only(workflow_in, source=ARCHIVE, sha256="0" * 64)
    line = one_line_and_nothing_built(workflow_in, res, f"its files' checksum is {SHA256}")
    assert "not deltafs-proto 2021.5" in line


def test_a_changed_source_tree_does_not_pass_for_the_release(workflow_in, tmp_path):
    need_archive()
    top = original_source.unpack(ARCHIVE, str(tmp_path), ARCHIVE)
    assert original_source.tree_sha256(top) == SHA256
    with open(os.path.join(top, "README.md"), "a") as f:
        f.write("changed\n")
    res = build_only(workflow_in, source=top)
    one_line_and_nothing_built(workflow_in, res, "is not deltafs-proto 2021.5")


def test_an_unreachable_url_is_named_with_the_fix(workflow_in):
    res = build_only(workflow_in, source="http://127.0.0.1:9/deltafs-proto-2021.5.tar.gz")
    line = one_line_and_nothing_built(workflow_in, res, "cannot download it")
    assert "give the release archive's path instead" in line


def test_an_archive_reaching_outside_its_folder_is_refused(workflow_in, tmp_path):
    evil = tmp_path / "evil.tar.gz"
    payload = tmp_path / "payload"
    payload.write_text("x")
    with tarfile.open(evil, "w:gz") as tar:
        tar.add(payload, arcname="../escaped")
    res = build_only(workflow_in, source=str(evil))
    one_line_and_nothing_built(workflow_in, res, "outside its folder")


def test_its_compactor_needs_as_many_ranks_as_wrote(tmp_path):
    res = subprocess.run([sys.executable, ORIGINAL_RUNS_PY, "deltafs-compact", "--bin", str(tmp_path), "--ranks", "3",
                          "--servers", "2", "--work", str(tmp_path), "--origin", "o", "--compacted", "c",
                          "--out", "x", "--log", "y"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 2
    assert "reads one writer store per rank: give --servers 3" in res.stderr
    assert not os.path.exists(tmp_path / "jobs")  # refused before any job
