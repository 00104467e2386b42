"""The original prototype in the image (docker/build-image.sh --original): where the session's
image was built with its release archive (conftest.py), its labels and image.json name the
commit and checksums the build checked, its tools are there without compilers, and a
smoke run on both implementations validates and writes the fidelity table; where it was
built without, asking for the original stops with one line naming how to build it."""
import csv
import hashlib
import json
import os

import pytest
import yaml

from docker_helpers import ARCHIVE, ORIGINAL, REPO, run

from workflows.launch import original_source

with open(os.path.join(REPO, "config", "config.yaml")) as _f:
    SHA256 = yaml.safe_load(_f)["original"]["sha256"]
BOTH = {"implementations": ["deltameta", "original"], "mdworkbench": {"interfaces": []}}
WITHOUT = f"{ARCHIVE} is not there, so the session's image holds no original (DELTAMETA_UPSTREAM names its folder)"


def in_image(image, *cmd):
    return run("docker", "run", "--rm", "--entrypoint", cmd[0], image, *cmd[1:], timeout=120).stdout


def write_config(out_dir):
    with open(os.path.join(out_dir, "both.yaml"), "w") as f:
        yaml.safe_dump(BOTH, f)


@pytest.mark.skipif(not ORIGINAL, reason=WITHOUT)
def test_labels_and_image_json_name_the_checked_original(image):
    labels = json.loads(run("docker", "image", "inspect", "--format", "{{json .Config.Labels}}", image).stdout)
    with open(ARCHIVE, "rb") as f:
        archive_sha256 = hashlib.file_digest(f, "sha256").hexdigest()
    assert labels["io.deltameta.original-commit"] == original_source.COMMIT
    assert labels["io.deltameta.original-sha256"] == SHA256
    assert labels["io.deltameta.original-archive-sha256"] == archive_sha256
    record = json.loads(in_image(image, "cat", "/opt/deltameta/image.json"))["original"]
    assert (record["commit"], record["sha256"], record["archive_sha256"]) == (
        original_source.COMMIT, SHA256, archive_sha256)
    assert record["licence"] == original_source.LICENCE
    tools = in_image(image, "ls", "/opt/deltameta/original/install/bin").split()
    assert sorted(tools) == ["deltafs_bm_cli", "deltafs_bm_svr", "parallel_compactor"]
    res = run("docker", "run", "--rm", "--entrypoint", "sh", image, "-c", "command -v gcc g++ cmake mpicc",
              check=False, timeout=120)
    assert res.stdout == "", f"compilers in the runtime image: {res.stdout}"


@pytest.mark.skipif(not ORIGINAL, reason=WITHOUT)
def test_a_smoke_run_on_both_implementations_validates_and_compares_them(image, out_dir):
    write_config(out_dir)
    res = run("docker", "run", "--rm", "-v", f"{out_dir}:/out", image, "run", "--configfile",
              "config/profiles/smoke.yaml", "/out/both.yaml", timeout=1200, check=False)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    results = os.path.join(out_dir, "results", "smoke")
    with open(os.path.join(results, "validation.json")) as f:
        validation = json.load(f)
    assert validation["ok"] is True and validation["phases_checked"] == 56  # as tests/workflow/test_original.py
    with open(os.path.join(results, "fidelity.csv"), newline="") as f:
        assert len([r for r in csv.DictReader(f) if r["kind"] == "phase"]) == 14  # 7 phases x 2 client counts
    with open(os.path.join(results, "fidelity.md")) as f:
        assert "comparisons agree" in f.read()
    with open(os.path.join(results, "provenance.json")) as f:
        prov = json.load(f)
    assert prov["image"]["original"]["commit"] == prov["original"]["commit"] == original_source.COMMIT
    assert prov["original"]["bin_dir"] == "/opt/deltameta/original/install/bin"


@pytest.mark.skipif(ORIGINAL, reason="the session's image holds the original (built with its archive)")
def test_asking_an_image_without_the_original_for_it_names_how_to_build_it(image, out_dir):
    write_config(out_dir)
    res = run("docker", "run", "--rm", "-v", f"{out_dir}:/out", image, "run", "--configfile",
              "config/profiles/smoke.yaml", "/out/both.yaml", "-n", timeout=300, check=False)
    assert res.returncode != 0
    line = ("implementations: this image holds no original prototype: build it with docker/build-image.sh "
            "--original PATH/deltafs-proto-2021.5.tar.gz (docker/README.md), or drop original")
    assert line in res.stderr, res.stderr
