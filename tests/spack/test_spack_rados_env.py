"""The +rados Spack environment of README.md ("Spack"): spack/envs/rados/spack.yaml
concretizes and installs, its tools are built with RADOS and pass runs 1-3, the workflow runs
from its view with every store in a throw-away Ceph cluster (config/profiles/rados.yaml), and
its externals stay those of spack.yaml. Spack as in test_spack_env.py."""
import os
import shutil

import pytest
import yaml

from spack_helpers import REPO
from spack_views import assert_tools, build_rule_fails, has_rados, snakemake, three_runs


@pytest.fixture(scope="module")
def rados_env(spack):
    """spack/envs/rados/spack.yaml concretized and installed."""
    if not os.path.exists("/usr/include/rados/librados.h"):
        pytest.skip("librados-dev is not installed (scripts/install-deps.sh installs it)")
    env = spack.env("env-rados", os.path.join(REPO, "spack", "envs", "rados", "spack.yaml"))
    spack("-e", env, "concretize")
    spack("-e", env, "install", timeout=2400)
    return env


def test_rados_env_installs_and_passes_the_three_runs(rados_env, tmp_path):
    view_bin = os.path.join(rados_env, ".spack-env", "view", "bin")
    assert_tools(view_bin)
    assert has_rados(view_bin)
    three_runs(view_bin, str(tmp_path / "runs"))


# The package builds the core without its CephFS client: MD-Workbench's cephfs interface and
# the cephfs system, which the rados profile runs (README.md, "Spack", says to leave both out).
PINNED_DESIGNS = ["indexfs", "indexfs-bulk", "deltafs"]
PINNED_INTERFACES = {"mdworkbench": {"interfaces": ["posix", "indexfs", "deltafs"]}}


def test_workflow_on_rados_runs_from_the_rados_view(rados_env, tmp_path):
    """config/profiles/rados.yaml: every store in a throw-away Ceph cluster."""
    if not (shutil.which("ceph-mon") and shutil.which("ceph-osd")):
        pytest.skip("ceph-mon and ceph-osd are not installed (scripts/install-deps.sh installs them)")
    snakemake(tmp_path, "rados.yaml", os.path.join(rados_env, ".spack-env", "view", "bin"),
              dict(PINNED_INTERFACES, systems=PINNED_DESIGNS))


def test_the_cephfs_system_the_pinned_core_lacks_stops_the_build_rule_with_one_line(rados_env, tmp_path):
    """The rados profile as it is (cephfs among its systems) on the pinned view: rule
    build_core names the client's missing --cephfs, the installed version and both fixes."""
    view_bin = os.path.join(rados_env, ".spack-env", "view", "bin")
    err = build_rule_fails(view_bin, tmp_path, "rados.yaml", {})
    line = (f"build_core: deltameta_client in {view_bin} (deltameta 0.5.0 is installed there) has no CephFS "
            "client (--cephfs), but systems lists cephfs: use core.build: source, which builds it, or leave cephfs "
            "out of systems")
    assert line in err, err[-3000:]


def test_an_interface_the_pinned_core_lacks_stops_the_build_rule_with_one_line(rados_env, tmp_path):
    """The rados profile without the cephfs system, MD-Workbench's interfaces as they are
    (cephfs among them), on the pinned view: rule build_core names the interface, the
    installed version and both fixes."""
    view_bin = os.path.join(rados_env, ".spack-env", "view", "bin")
    err = build_rule_fails(view_bin, tmp_path, "rados.yaml", {"systems": PINNED_DESIGNS})
    line = (f"build_core: deltameta_mdworkbench in {view_bin} (deltameta 0.5.0 is installed there) has no cephfs "
            "interface, but mdworkbench.interfaces lists it: use core.build: source, which builds every interface, "
            "or leave cephfs out of mdworkbench.interfaces")
    assert line in err, err[-3000:]


def test_rados_env_has_the_default_envs_externals():
    """spack/envs/rados/spack.yaml repeats spack.yaml's externals (Spack cannot include them
    from a file in a way that survives `spack env create`): they must not drift apart."""
    with open(os.path.join(REPO, "spack.yaml")) as f:
        default = yaml.safe_load(f)["spack"]
    with open(os.path.join(REPO, "spack", "envs", "rados", "spack.yaml")) as f:
        rados = yaml.safe_load(f)["spack"]
    rados_packages = dict(rados["packages"])
    assert rados_packages.pop("librados")["externals"][0]["spec"].startswith("librados@")
    assert rados_packages == default["packages"]
    assert rados["repos"]["builtin"] == default["repos"]["builtin"]
    assert rados["specs"] == [s.replace("~rados", "+rados") for s in default["specs"]]
