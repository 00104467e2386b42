"""Shared by every Python test: the `slow` mark, which `scripts/test.sh --quick` leaves out.
A test is slow when it starts the workflow, a cluster, an image or a build: every test in
tests/ceph, docker, slurm and spack, and every test that uses one of SLOW_FIXTURES (they
run Snakemake) or is marked slow by hand (a test that runs Snakemake itself)."""
import os

import pytest

TESTS = os.path.dirname(os.path.abspath(__file__))
SLOW_FOLDERS = ("ceph", "docker", "slurm", "spack")
SLOW_FIXTURES = {"smoke", "rados_smoke", "workflow_in", "rados_workflow_in", "two_ns", "original_smoke",
                 "original_ceph", "original_rados_run"}


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: starts the workflow, a cluster, an image or a build "
                                       "(left out by scripts/test.sh --quick)")


def pytest_collection_modifyitems(items):
    for item in items:
        folder = os.path.relpath(str(item.path), TESTS).split(os.sep)[0]
        if folder in SLOW_FOLDERS or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
