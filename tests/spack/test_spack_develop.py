"""README.md's `spack develop` route: an environment made from spack.yaml, switched to
deltameta@main and developed from this working tree, builds it (nothing left in the tree),
records the tree as its source and its commit in the tools, which pass runs 1-3. Spack as in
test_spack_env.py."""
import json
import os

from spack_helpers import REPO, installed_prefix, run
from spack_views import three_runs


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
