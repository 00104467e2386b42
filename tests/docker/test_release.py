"""The release (scripts/make-release.sh) of a scratch repository holding this working tree,
committed: refused for a dirty tree, a version the core or the citation metadata do not
name, a tag on another commit or an existing output folder; made, it holds the tagged
source, the image, wheels and reference results with their checksums, and reproduces the
smoke figures and the claims with no network at all: the venv from its wheels in a network
namespace without interfaces, the workflow in a plain container (no added capability,
Docker's 64 MB /dev/shm) of the loaded image with --network none, its results owned by the
output folder's owner. The image it saves holds none of the build host's configuration, in
any of its layers."""
import csv
import glob
import hashlib
import json
import os
import re
import tarfile

import pytest

from docker_helpers import GIT_ID, REPO, git, run, scratch_repo

with open(os.path.join(REPO, "core", "CMakeLists.txt")) as _cmake:
    VERSION = re.search(r"project\(deltameta VERSION (\d+\.\d+\.\d+)", _cmake.read())[1]


def make_release(work, *args, check=True):
    return run("bash", str(work / "scripts" / "make-release.sh"), *args, check=check, timeout=2400,
               env=dict(os.environ, **GIT_ID))


@pytest.fixture
def work(tmp_path):
    return scratch_repo(tmp_path / "repo")


def test_refused_for_another_version_or_mismatched_citation(work):
    res = make_release(work, "9.9.9", "--no-image", check=False)
    assert res.returncode == 2 and f"the core is {VERSION} (core/CMakeLists.txt), not 9.9.9" in res.stderr
    cff = work / "CITATION.cff"
    cff.write_text(re.sub(r"(?m)^version: .*$", "version: 9.9.9", cff.read_text()))
    git(work, "commit", "-qam", "bump")
    res = make_release(work, VERSION, "--no-image", check=False)
    assert res.returncode == 2 and f"the core is {VERSION} but CITATION.cff says '9.9.9'" in res.stderr
    assert not (work / "dist").exists() and git(work, "tag") == ""


def test_refused_for_a_dirty_tree_a_moved_tag_or_an_existing_folder(work):
    (work / "README.md").write_text("changed\n")
    res = make_release(work, VERSION, "--no-image", check=False)
    assert res.returncode == 2 and "uncommitted changes to tracked files" in res.stderr
    git(work, "checkout", "-q", "README.md")
    git(work, "tag", "-a", f"v{VERSION}", "-m", "old")
    git(work, "commit", "-q", "--allow-empty", "-m", "later")
    res = make_release(work, VERSION, "--no-image", check=False)
    assert res.returncode == 2 and f"tag v{VERSION} names" in res.stderr
    git(work, "tag", "-d", f"v{VERSION}")
    (work / "dist" / f"deltameta-{VERSION}").mkdir(parents=True)
    (work / "dist" / f"deltameta-{VERSION}" / "mine").write_text("kept")
    res = make_release(work, VERSION, "--no-image", check=False)
    assert res.returncode == 2 and "exists: move it away" in res.stderr
    assert (work / "dist" / f"deltameta-{VERSION}" / "mine").read_text() == "kept"


@pytest.fixture(scope="module")
def release(image, tmp_path_factory):
    work = scratch_repo(tmp_path_factory.mktemp("release") / "repo")
    res = make_release(work, VERSION, "--image", image)
    assert "make-release:" in res.stdout
    return work, work / "dist" / f"deltameta-{VERSION}"


def test_release_holds_the_tagged_commit_with_checksums(release):
    work, dist = release
    name = f"deltameta-{VERSION}"
    assert sorted(os.listdir(dist)) == sorted(["RELEASE.json", "SHA256SUMS"] + [
        f"{name}-{part}.tar.gz" for part in ("source", "image", "wheels", "reference")])
    run("sha256sum", "--quiet", "-c", "SHA256SUMS", cwd=dist)
    doc = json.loads((dist / "RELEASE.json").read_text())
    tagged = git(work, "rev-parse", f"v{VERSION}^{{commit}}").strip()
    assert doc["commit"] == tagged == git(work, "rev-parse", "HEAD").strip()
    assert doc["image"]["tag"] == f"deltameta:{VERSION}" and doc["image"]["id"].startswith("sha256:")
    with tarfile.open(dist / f"{name}-source.tar.gz") as tar:
        names = set(tar.getnames())
    for need in ("LICENSE", "CITATION.cff", ".zenodo.json", "README.md", "paper/claims.yaml", "paper/appendix.md",
                 "results/reference/summary.csv", "core/CMakeLists.txt", "Snakefile"):
        assert f"{name}/{need}" in names, need
    assert not any("/results/runs/" in n or "/.venv/" in n or "/build/" in n or "/dist/" in n for n in names)
    with tarfile.open(dist / f"{name}-reference.tar.gz") as tar:
        assert f"{name}/results/reference/summary.csv" in tar.getnames()


def test_the_wheels_make_the_venv_with_no_network(release, tmp_path):
    _, dist = release
    with tarfile.open(dist / f"deltameta-{VERSION}-wheels.tar.gz") as tar:
        tar.extractall(tmp_path, filter="data")
    with tarfile.open(dist / f"deltameta-{VERSION}-source.tar.gz") as tar:
        tar.extractall(tmp_path, filter="data")
    venv, src = tmp_path / "venv", tmp_path / f"deltameta-{VERSION}"
    run("python3", "-m", "venv", str(venv))
    # A network namespace of its own with no interface up: nothing can be fetched.
    run("unshare", "--net", str(venv / "bin" / "pip"), "install", "--quiet", "--no-index", "--find-links",
        str(tmp_path / "wheels"), "-r", str(tmp_path / "wheels" / "requirements.txt"), timeout=900)
    res = run("unshare", "--net", str(venv / "bin" / "snakemake"), "-n", "--cores", "2", "--configfile",
              "config/profiles/smoke.yaml", cwd=src)
    assert "claims" in res.stdout


def owners(root):
    return {(os.stat(p).st_uid, os.stat(p).st_gid) for p in glob.glob(os.path.join(root, "**"), recursive=True)}


def test_the_loaded_image_reproduces_the_smoke_figures_with_no_network(release, image, out_dir):
    _, dist = release
    tag = f"deltameta:{VERSION}"
    run("docker", "rmi", tag)
    run("docker", "load", "-q", "-i", str(dist / f"deltameta-{VERSION}-image.tar.gz"))
    res = run("docker", "run", "--rm", "--network", "none", "-v", f"{out_dir}:/out", tag, "run", "--configfile",
              "config/profiles/smoke.yaml", timeout=1200)
    assert "results in /out/results" in res.stdout, res.stdout[-2000:]
    smoke = os.path.join(out_dir, "results", "smoke")
    with open(os.path.join(smoke, "validation.json")) as f:
        assert json.load(f)["ok"] is True
    with open(os.path.join(smoke, "summary.csv")) as f:
        rows = list(csv.DictReader(f))
    assert {r["system"] for r in rows} == {"indexfs", "indexfs-bulk", "deltafs"}
    assert all(r["errors"] == "0" and r["hosts"] == "1" for r in rows)
    for name in ("insert_throughput", "lstat_throughput", "compaction_throughput", "claims"):
        assert os.path.getsize(os.path.join(smoke, "figures", name + ".png")) > 1000
    with open(os.path.join(smoke, "claims.json")) as f:
        claims = json.load(f)
    assert len(claims["claims"]) >= 5
    assert os.path.getsize(os.path.join(smoke, "report.html")) > 10000
    assert owners(out_dir) == {(1000, 1000)}

    with open(os.path.join(smoke, "provenance.json")) as f:
        prov = json.load(f)
    labels = json.loads(run("docker", "image", "inspect", "-f", "{{json .Config.Labels}}", tag).stdout)
    assert prov["image"]["core_source"] == "working-tree" == labels["io.deltameta.core"]
    assert labels["org.opencontainers.image.revision"] == prov["git_revision"] == prov["image"]["core_commit"]
    assert {r["git_revision"] for r in rows} == {prov["image"]["core_revision"]}
    # git_dirty means on the image what it means on the host: the clone's state (git status)
    assert prov["git_dirty"] is prov["image"]["tree_dirty"] is (labels["io.deltameta.tree-dirty"] == "true")
    assert all(p["rank_hosts"] for phases in prov["placement"].values() for p in phases.values())


# Where a host keeps the configuration that docker/make-base-image.sh gives the build (apt
# sources and settings, pip's, local CA certificates and their entries in /etc/ssl/certs).
HOST_CONFIG = ("/etc/apt/", "/etc/pip.conf", "/etc/xdg/pip/", "/usr/local/share/ca-certificates/", "/etc/ssl/certs/")


def host_config():
    """{sha256: path} of this host's configuration files, and the bodies of its local CA certificates."""
    files = {}
    for root in HOST_CONFIG:
        paths = [root] if os.path.isfile(root) else glob.glob(root + "**", recursive=True)
        for path in filter(os.path.isfile, paths):
            with open(path, "rb") as f:
                files[hashlib.sha256(f.read()).hexdigest()] = path
    bodies = []
    for path in glob.glob("/usr/local/share/ca-certificates/**/*.crt", recursive=True):
        with open(path) as f:
            pem = f.read()
        bodies += ["".join(b.split()) for b in re.findall(r"-----BEGIN CERTIFICATE-----(.*?)-----END", pem, re.S)]
    return files, bodies


def saved_files(saved):
    """Every file under HOST_CONFIG in every layer of the saved image `saved` (the release's
    `docker save` output, gzipped: what a release publishes; a file a later layer deletes is
    still there) as (path, data, symlink target), and the paths the image's Debian packages
    own."""
    found, owned, layers = [], set(), 0
    with tarfile.open(saved, mode="r|gz") as outer:
        for member in outer:
            if not member.name.endswith("layer.tar"):
                continue
            layers += 1
            with tarfile.open(fileobj=outer.extractfile(member), mode="r|") as layer:
                for m in layer:
                    path = "/" + m.name.removeprefix("./")
                    if path.startswith("/var/lib/dpkg/info/") and path.endswith(".list") and m.isfile():
                        owned.update(layer.extractfile(m).read().decode().split("\n"))
                    elif any(path.startswith(r) or path == r for r in HOST_CONFIG) and (m.isfile() or m.issym()):
                        found.append((path, layer.extractfile(m).read() if m.isfile() else b"", m.linkname))
    assert layers > 0
    return found, owned


def test_the_saved_image_holds_none_of_the_build_hosts_configuration(release):
    host_files, local_cas = host_config()
    found, owned = saved_files(release[1] / f"deltameta-{VERSION}-image.tar.gz")
    assert any(p.startswith("/etc/apt/") for p, _, _ in found), "no /etc/apt in the saved layers: nothing was read"
    from_host = [f"{p} (the host's {host_files[h]})" for p, data, _ in found
                 if (h := hashlib.sha256(data).hexdigest()) in host_files and p not in owned and data]
    local = [p for p, _, target in found
             if p.startswith("/usr/local/share/ca-certificates/") or "/usr/local/share/ca-certificates/" in target]
    trusted = [p for p, data, _ in found for body in local_cas
               if body and body in "".join(data.decode(errors="replace").split())]
    assert from_host == [] and local == [] and trusted == [], (from_host, local, trusted)
