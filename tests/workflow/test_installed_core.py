"""The workflow on an installed core (core.build: installed), e.g. a Spack view's bin/: its
tools are used, and a bin_dir lacking a tool the configured runs start fails at once with
one line naming the tool, the version installed there and how to switch those runs off; the
tools' --help names what they were built with, which the build rule reads."""
import json
import os
import subprocess

from workflow_helpers import NO_MDWB, REPO

from workflows.launch.build_core import built_with

BUILT = os.path.join(REPO, "build", "core")


def test_installed_tools_are_used(workflow_in):
    res = workflow_in.run(overrides={**NO_MDWB, "systems": ["indexfs-bulk"], "client_ranks": [2], "repetitions": 1,
                                     "core": {"build": "installed", "bin_dir": BUILT}})
    assert res.returncode == 0, res.stderr[-3000:]
    with open(workflow_in.path("results", "core", "tools.json")) as f:
        assert json.load(f) == {"mode": "installed", "bin_dir": BUILT,
                                "tools": ["deltameta_client", "deltameta_client_store", "deltameta_server"]}


def test_missing_installed_tools_fail_clearly(workflow_in):
    res = workflow_in.run(overrides={"core": {"build": "installed", "bin_dir": "/nonexistent/bin"}})
    assert res.returncode != 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert "deltameta_server, deltameta_client, deltameta_client_store, deltameta_compactor" in res.stderr
    assert "not found in /nonexistent/bin: set core.bin_dir to the directory holding the installed tools" in res.stderr


def older_install(root, version, lacking):
    """A Spack-like prefix under `root` whose bin/ holds the built tools but `lacking`, with
    the spec.json Spack writes for an installed package; returns its bin/."""
    bin_dir = os.path.join(root, f"deltameta-{version}", "bin")
    os.makedirs(bin_dir)
    for tool in os.listdir(BUILT):
        if tool.startswith("deltameta_") and tool != lacking:
            os.symlink(os.path.join(BUILT, tool), os.path.join(bin_dir, tool))
    os.makedirs(os.path.join(root, f"deltameta-{version}", ".spack"))
    with open(os.path.join(root, f"deltameta-{version}", ".spack", "spec.json"), "w") as f:
        json.dump({"spec": {"nodes": [{"name": "deltameta", "version": version}]}}, f)
    return bin_dir


def test_a_tool_the_runs_need_missing_from_an_older_install_is_one_line(workflow_in, tmp_path):
    bin_dir = older_install(str(tmp_path / "opt"), "0.3.0", "deltameta_mdworkbench")
    core = {"build": "installed", "bin_dir": bin_dir}
    res = workflow_in.run("--until", "build_core", overrides={"core": core})
    assert res.returncode != 0, res.stdout[-2000:] + res.stderr[-2000:]
    lines = [line for line in res.stderr.splitlines() if line.startswith("build_core:")]
    assert lines == [f"build_core: deltameta_mdworkbench not found in {bin_dir} (deltameta 0.3.0 is installed there), "
                     "but the MD-Workbench runs (off: mdworkbench: {interfaces: []}) start it: install a newer "
                     "deltameta (README.md, \"Spack\") or switch those runs off"], res.stderr[-3000:]
    # With those runs off, the same install serves the rest.
    res = workflow_in.run("--until", "build_core", overrides={**NO_MDWB, "core": core})
    assert res.returncode == 0, res.stderr[-3000:]


def test_every_tool_names_its_build_and_what_it_has_in_its_help():
    """scripts/build-core.sh builds every optional part: each tool's --help ends in the same
    line naming the version and snappy, rados and cephfs, which built_with reads."""
    lines = set()
    tools = sorted(t for t in os.listdir(BUILT) if t.startswith("deltameta_") and not t.endswith((".a", ".so")))
    assert "deltameta_storage" in tools and "deltameta_client" in tools, tools
    for tool in tools:
        res = subprocess.run([os.path.join(BUILT, tool), "--help"], capture_output=True, text=True, timeout=60)
        assert res.returncode == 0, res
        lines.add(res.stdout.rstrip("\n").splitlines()[-1])
        assert built_with(res.stdout) == {"snappy", "rados", "cephfs"}, (tool, res.stdout[-300:])
    assert len(lines) == 1 and next(iter(lines)).startswith("Build: deltameta "), lines
    assert built_with("Usage: deltameta_client [--flag=value ...]\n  --cephfs=0 ...\n") is None  # 0.4.0 and older
    assert built_with("Build: deltameta 0.5.0 (0123456789ab), with: none\n") == set()
