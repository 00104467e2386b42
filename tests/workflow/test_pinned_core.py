"""The core that Spack installs (the newest version the package pins, spack.yaml's spec)
builds every tool the workflow's configurations start: the default, every profile, and
the +rados environment with the rados profile. Read from the pinned commit's CMake file in
this clone's history and from the registry (registry.tools_needed), so a workflow that
starts to need a tool the pinned version lacks fails here, without Spack."""
import glob
import os
import re
import subprocess

import pytest
import yaml
from snakemake.utils import update_config

from workflow_helpers import REPO

from workflows.registry import tools_needed

PACKAGE = os.path.join(REPO, "spack", "spack_repo", "deltameta", "packages", "deltameta", "package.py")
PROFILES = sorted(glob.glob(os.path.join(REPO, "config", "profiles", "*.yaml")))


def pinned():
    """(version, commit) of the newest numbered version the package pins."""
    with open(PACKAGE) as f:
        versions = re.findall(r'version\("(\d+\.\d+\.\d+)", commit="([0-9a-f]{40})"\)', f.read())
    return max(versions, key=lambda v: tuple(map(int, v[0].split("."))))


def built_tools(commit):
    """The deltameta_* programs the core's CMake file at `commit` builds (add_executable,
    also through a foreach over tool names), and the version it declares."""
    text = subprocess.run(["git", "-C", REPO, "show", f"{commit}:core/CMakeLists.txt"], capture_output=True,
                          text=True, check=True).stdout
    tools = set(re.findall(r"add_executable\((deltameta_\w+)\s", text))
    for names, body in re.findall(r"foreach\(tool ([\w ]+)\)(.*?)endforeach", text, re.S):
        if "add_executable(deltameta_${tool}" in body:
            tools |= {f"deltameta_{name}" for name in names.split()}
    return tools, re.search(r"project\(deltameta VERSION (\d+\.\d+\.\d+)", text)[1]


def configuration(profile=None):
    with open(os.path.join(REPO, "config", "config.yaml")) as f:
        config = yaml.safe_load(f)
    if profile:
        with open(profile) as f:
            update_config(config, yaml.safe_load(f))
    return config


def test_the_environments_install_the_pinned_version():
    version, _ = pinned()
    for manifest in ("spack.yaml", os.path.join("spack", "envs", "rados", "spack.yaml")):
        with open(os.path.join(REPO, manifest)) as f:
            specs = yaml.safe_load(f)["spack"]["specs"]
        assert [s.split()[0] for s in specs] == [f"deltameta@{version}"], (manifest, specs)


@pytest.mark.parametrize("profile", [None] + PROFILES, ids=lambda p: os.path.basename(p) if p else "config.yaml")
def test_the_pinned_version_builds_every_tool_the_configuration_starts(profile):
    version, commit = pinned()
    tools, declared = built_tools(commit)
    assert declared == version, f"the package pins {version} to {commit[:12]}, whose core is {declared}"
    needed = tools_needed(configuration(profile))
    missing = {tool: why for tool, why in needed.items() if tool not in tools}
    assert not missing, (f"deltameta {version} (commit {commit[:12]}) lacks {sorted(missing)}, which "
                         f"{'; '.join(sorted(set(missing.values())))} start: pin a newer version in {PACKAGE}")
