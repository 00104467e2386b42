"""The Spack route of README.md ("Spack"), for real, on the project's spack.yaml (+mpi
+snappy): it concretizes and installs with the core's tests (--test=root), the installed
tools pass runs 1-3, and the workflow runs on the Spack view. The +rados environment is
test_spack_rados_env.py's, `spack develop` test_spack_develop.py's: scripts/test.sh runs this
file beside the others, as the longest of them.

Spack is the `spack` on PATH, set up as README.md says; without one, scripts/setup-spack.sh
sets one up offline from the release archives in $DELTAMETA_UPSTREAM (default:
../shared/upstream beside the clone), in the folder $DELTAMETA_SPACK_SETUP names (where
scripts/test.sh sets it up once for every Spack test) or else in the test's scratch space;
without either, these tests are skipped with that reason. Slow: 8 to 15 minutes on 2 cores.
Everything Spack writes (install tree, stages, caches, environments, its user settings
where the test set Spack up) goes to a temporary directory through a configuration scope of
the test's own, so neither earlier Spack runs nor the project tree matter. Every command has
a time limit; on expiry its whole process group is killed."""
import os

import pytest

from spack_helpers import REPO, installed_prefix
from spack_views import assert_tools, build_rule_fails, has_rados, snakemake, three_runs


@pytest.fixture(scope="module")
def default_env(spack):
    """spack.yaml concretized and installed with the core's tests (--test=root)."""
    env = spack.env("env-default", os.path.join(REPO, "spack.yaml"))
    out = spack("-e", env, "concretize", "--test=root")
    assert "Error constructing repository" not in out, out  # e.g. builtin not usable offline
    spack("-e", env, "install", "--test=root", timeout=2400)
    return env


def test_default_env_installs_and_passes_the_three_runs(spack, default_env, tmp_path):
    prefix = installed_prefix(spack, default_env)
    with open(os.path.join(prefix, ".spack", "install-time-test-log.txt")) as f:
        test_log = f.read()
    assert "100% tests passed" in test_log and "integration.test_three_runs" in test_log, test_log[-2000:]
    # the package's check() leaves out what the project's CI runs on every commit
    assert "fuzz.wire" not in test_log and "integration.test_instruction_budget" not in test_log, test_log[-2000:]
    view_bin = os.path.join(default_env, ".spack-env", "view", "bin")
    assert_tools(view_bin)
    assert not has_rados(view_bin)
    build = three_runs(view_bin, str(tmp_path / "runs"))
    assert build["version"] == "0.5.0" and build["snappy"] and build["mpi"], build


def test_workflow_runs_from_the_spack_view(default_env, tmp_path):
    snakemake(tmp_path, "smoke.yaml", os.path.join(default_env, ".spack-env", "view", "bin"))


def test_the_rados_profile_on_the_default_view_stops_the_build_rule_with_one_line(default_env, tmp_path):
    """The default view's tools have no RADOS (their --help's last line says so): the rados
    profile's rule build_core says that in one line with both fixes, before any run starts."""
    view_bin = os.path.join(default_env, ".spack-env", "view", "bin")
    err = build_rule_fails(view_bin, tmp_path, "rados.yaml", {})
    line = (f"build_core: the tools in {view_bin} (deltameta 0.5.0 is installed there) were built without RADOS, but "
            "storage is rados: install deltameta +rados (README.md, \"Spack\") or use core.build: source, which "
            "builds it")
    assert line in err, err[-3000:]
