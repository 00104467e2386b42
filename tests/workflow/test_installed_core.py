"""The workflow on an installed core (core.build: installed), e.g. a Spack view's bin/."""
import json
import os

from conftest import NO_MDWB, REPO


def test_installed_tools_are_used(workflow_in):
    bin_dir = os.path.join(REPO, "build", "core")
    res = workflow_in.run(overrides={**NO_MDWB, "systems": ["indexfs-bulk"], "client_ranks": [2], "repetitions": 1,
                                     "core": {"build": "installed", "bin_dir": bin_dir}})
    assert res.returncode == 0, res.stderr[-3000:]
    with open(workflow_in.path("results", "core", "tools.json")) as f:
        assert json.load(f) == {"mode": "installed", "bin_dir": bin_dir,
                                "tools": ["deltameta_server", "deltameta_client", "deltameta_client_store",
                                          "deltameta_compactor"]}


def test_missing_installed_tools_fail_clearly(workflow_in):
    res = workflow_in.run(overrides={"core": {"build": "installed", "bin_dir": "/nonexistent/bin"}})
    assert res.returncode != 0
    assert ("deltameta_server, deltameta_client, deltameta_client_store, deltameta_compactor not found in "
            "/nonexistent/bin") in res.stderr
