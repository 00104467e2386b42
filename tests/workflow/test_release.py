"""The release archive (scripts/release-archive.sh): named after the core's version, made of
the committed tree with the licence, citation metadata, claims and reference results, and
refused when the citation metadata name another version. Runs on a scratch repository
holding this working tree, committed."""
import os
import re
import subprocess
import tarfile

import pytest

from conftest import REPO, git
from test_metadata import core_version


@pytest.fixture
def committed_tree(tmp_path):
    """A git repository of this working tree's tracked and new (not ignored) files."""
    files = subprocess.run(["git", "-C", REPO, "ls-files", "-co", "--exclude-standard", "-z"], capture_output=True,
                           check=True).stdout.decode().split("\0")
    work = tmp_path / "repo"
    for name in filter(None, files):
        src, dst = os.path.join(REPO, name), work / name
        if os.path.isfile(src):
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(open(src, "rb").read())
            os.chmod(dst, os.stat(src).st_mode)
    git(str(work), "init", "-q")
    git(str(work), "add", "-A")
    git(str(work), "-c", "user.name=test", "-c", "user.email=test@localhost", "commit", "-qm", "release")
    return work


def archive(work, dist):
    return subprocess.run(["bash", str(work / "scripts" / "release-archive.sh")], capture_output=True, text=True,
                          env=dict(os.environ, DELTAMETA_DIST=str(dist)), timeout=300)


def test_archive_holds_the_committed_release(committed_tree, tmp_path):
    version = core_version()
    res = archive(committed_tree, tmp_path / "dist")
    if res.returncode != 0 and "CITATION.cff says" in res.stderr:
        pytest.fail(res.stderr)  # test_metadata's version test says the same
    assert res.returncode == 0, res.stderr
    path = tmp_path / "dist" / f"deltameta-{version}.tar.gz"
    with tarfile.open(path) as tar:
        names = set(tar.getnames())
    prefix = f"deltameta-{version}/"
    for need in ("LICENSE", "CITATION.cff", ".zenodo.json", "README.md", "paper/claims.yaml", "paper/appendix.md",
                 "results/reference/summary.csv", "core/CMakeLists.txt", "Snakefile"):
        assert prefix + need in names, need
    assert not any("/results/runs/" in n or "/.venv/" in n or "/build/" in n for n in names)
    sha = (tmp_path / "dist" / f"deltameta-{version}.tar.gz.sha256").read_text()
    assert sha.split()[1] == path.name


def test_archive_refuses_citation_of_another_version(committed_tree, tmp_path):
    cff = committed_tree / "CITATION.cff"
    cff.write_text(re.sub(r"(?m)^version: .*$", "version: 9.9.9", cff.read_text()))
    git(str(committed_tree), "-c", "user.name=test", "-c", "user.email=test@localhost", "commit", "-qam", "bump")
    res = archive(committed_tree, tmp_path / "dist")
    assert res.returncode != 0
    assert f"the core is {core_version()} but CITATION.cff says '9.9.9'" in res.stderr
    assert not (tmp_path / "dist").exists() or not os.listdir(tmp_path / "dist")
