"""Fixture of the Slurm tests: a one-host Slurm cluster (scripts/slurm-cluster.sh: munge,
slurmctld and one slurmd declaring 8 CPUs) started once per test session and stopped at
its end. Skipped, with the reason, where Slurm's packages are not installed or the host has
a Slurm configuration of its own."""
import os
import shutil
import subprocess
import tempfile

import pytest

from slurm_helpers import CLUSTER_SCRIPT, slurm_unavailable


@pytest.fixture(scope="session")
def slurm_cluster():
    """The directory of a running one-host cluster; SLURM_CONF of this process points at it."""
    why = slurm_unavailable()
    if why:
        pytest.skip(why)
    d = tempfile.mkdtemp(prefix="deltameta-slurm-", dir="/tmp")
    res = subprocess.run(["bash", CLUSTER_SCRIPT, "start", d], capture_output=True, text=True, timeout=180)
    assert res.returncode == 0, res.stdout + res.stderr
    old = os.environ.get("SLURM_CONF")
    os.environ["SLURM_CONF"] = os.path.join(d, "slurm.conf")
    try:
        yield d
    finally:
        res = subprocess.run(["bash", CLUSTER_SCRIPT, "stop", d], capture_output=True, text=True, timeout=180)
        if old is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = old
        shutil.rmtree(d, ignore_errors=True)
        assert res.returncode == 0, res.stdout + res.stderr
    assert not os.path.lexists("/etc/slurm/slurm.conf") or not os.readlink("/etc/slurm/slurm.conf").startswith(d)
