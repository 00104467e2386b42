"""The image on one node: a plain `docker run` (no added capability, Docker's default 64 MB
/dev/shm) reproduces the smoke figures into a host folder, owned by that folder's owner, with
the image's provenance."""
import csv
import glob
import json
import os

from conftest import run


def owners(root):
    return {(os.stat(p).st_uid, os.stat(p).st_gid) for p in glob.glob(os.path.join(root, "**"), recursive=True)}


def test_smoke_run_in_a_plain_container(image, out_dir):
    res = run("docker", "run", "--rm", "-v", f"{out_dir}:/out", image, "run", "--configfile",
              "config/profiles/smoke.yaml", timeout=1200)
    assert "results in /out/results" in res.stdout, res.stdout[-2000:]
    with open(os.path.join(out_dir, "results", "smoke", "validation.json")) as f:
        assert json.load(f)["ok"] is True
    with open(os.path.join(out_dir, "results", "smoke", "summary.csv")) as f:
        rows = list(csv.DictReader(f))
    assert {r["system"] for r in rows} == {"indexfs", "indexfs-bulk", "deltafs"}
    assert all(r["errors"] == "0" and r["hosts"] == "1" for r in rows)
    for name in ("insert_throughput", "lstat_throughput", "compaction_throughput"):
        assert os.path.getsize(os.path.join(out_dir, "results", "smoke", "figures", name + ".png")) > 1000
    assert os.path.getsize(os.path.join(out_dir, "results", "smoke", "report.html")) > 10000
    assert owners(out_dir) == {(1000, 1000)}

    with open(os.path.join(out_dir, "results", "smoke", "provenance.json")) as f:
        prov = json.load(f)
    labels = json.loads(run("docker", "image", "inspect", "-f", "{{json .Config.Labels}}", image).stdout)
    assert prov["image"]["core_source"] == "working-tree" == labels["io.deltameta.core"]
    assert labels["org.opencontainers.image.revision"].startswith(prov["git_revision"].removesuffix("-dirty"))
    assert {r["git_revision"] for r in rows} == {prov["git_revision"]}
    assert all(p["rank_hosts"] for phases in prov["placement"].values() for p in phases.values())


def test_a_missing_output_folder_is_one_line_and_exit_2(image):
    res = run("docker", "run", "--rm", image, "run", check=False, timeout=120)
    assert res.returncode == 2
    assert "/out is not a writable folder mounted from the host: mount one" in res.stderr
