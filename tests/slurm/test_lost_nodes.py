"""How a run that failed under Slurm names the nodes Slurm no longer counts as up
(workflows/launch/slurm_nodes.py): by Slurm's name and state, then the node's address and
the name that address resolved back to when the job started (on the Docker cluster, the
container's name beside the container id Slurm knows the node by), looked up while the
node answered, since a stopped container leaves Docker's name service. No Slurm cluster is
needed: the lookup is real (127.0.0.1 resolves back to a name here), Slurm's state is given."""
import socket

import mpijobs.launcher as launcher
import pytest

from workflows.launch.slurm_nodes import node_label


@pytest.fixture(autouse=True)
def no_names_remembered():
    launcher._NAMES.clear()
    yield
    launcher._NAMES.clear()


def test_a_lost_node_is_named_by_its_address_and_the_name_it_had_when_the_job_started():
    launcher.remember_host_names(["127.0.0.1"])  # as slurm_run.py does when the job starts
    name = socket.gethostbyaddr("127.0.0.1")[0]
    assert node_label("3f2a9c0d1e4b", "down*", {"3f2a9c0d1e4b": "127.0.0.1"}) == \
        f"3f2a9c0d1e4b (down*; 127.0.0.1, {name})"


def test_an_address_without_a_name_or_a_node_without_an_address_says_what_there_is():
    launcher.remember_host_names(["192.0.2.1"])  # TEST-NET-1: resolves to no name
    assert node_label("n2", "idle*", {"n2": "192.0.2.1"}) == "n2 (idle*; 192.0.2.1)"
    assert node_label("n3", "down", {"n3": "n3"}) == "n3 (down)"  # Slurm's address is the name itself
    assert node_label("n4", "fail") == "n4 (fail)"
