"""The folder the README's Docker commands write results to (out/, `mkdir -p out` at the top
of the clone) is neither an untracked file to git (which would make every later host run
record git_dirty: true) nor part of the image's build context."""
import subprocess

from workflow_helpers import REPO


def test_out_is_ignored_by_git():
    res = subprocess.run(["git", "-C", REPO, "check-ignore", "-q", "out/run/summary.csv"], timeout=60)
    assert res.returncode == 0, "git does not ignore out/: add /out/ to .gitignore"


def test_out_is_left_out_of_the_build_context():
    with open(f"{REPO}/.dockerignore") as f:
        patterns = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    assert "out" in patterns, ".dockerignore does not leave out/ out of docker build's context"
