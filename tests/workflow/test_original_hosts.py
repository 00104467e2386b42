"""The original prototype's runs on a hostfile of several hosts (core/bench/guide_hosts.py),
as ours are placed: IndexFS servers on the first host and their clients on the others, the
DeltaFS jobs on every host, the servers and the compactor given their hosts' address prefix
and the clients the info port of the servers' first host, every rank ending through the
core's preload library (libdeltameta_mpi_end.so); hosts on no common network refused
in one line (RADOS stores across hosts: test_original_rados.py); the
workflow's configured hostfile reaching its runs. The hosts here are two names of this host
(MPICH's mpiexec starts ranks on either without ssh): the command lines and what the servers
printed show the placement, not two machines (tests/docker has the multi-host cluster)."""
import json
import os
import socket
import subprocess
import sys

import pytest

from workflow_helpers import REPO, tools_bin

ORIGINAL_RUNS_PY = os.path.join(REPO, "core", "bench", "original_runs.py")


def other_address():
    """An IPv4 address of this host other than the loopback (the route out), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # no packet is sent: the kernel picks the source address
            return s.getsockname()[0]
        except OSError:
            return None


def run_original(bin_dir, tmp_path, run, hosts, *more):
    hostfile = tmp_path / "hostfile"
    hostfile.write_text("".join(h + "\n" for h in hosts))
    return subprocess.run([sys.executable, ORIGINAL_RUNS_PY, run, "--bin", bin_dir, "--hostfile", str(hostfile),
                           "--ranks", "2", "--servers", "2", "--n", "300", "--timeout", "120", "--work",
                           str(tmp_path / "work"), "--out", str(tmp_path / f"{run}.jsonl"), "--log",
                           str(tmp_path / "run.log"), *more], capture_output=True, text=True, timeout=400)


def docs(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_indexfs_servers_go_to_the_first_host_and_clients_to_the_others(original_smoke, tmp_path):
    address = other_address()
    if not address or address.startswith("127."):
        pytest.skip("this host has no IPv4 address besides the loopback to name as a second host")
    res = run_original(tools_bin(original_smoke), tmp_path, "indexfs", ["127.0.0.1", address])
    assert res.returncode == 0, res.stderr[-3000:]
    for d in docs(tmp_path / "indexfs.jsonl"):
        assert d["ops"] == 600 and d["errors"]["total"] == 0
        assert d["placement"]["hosts"] == 2
        assert d["placement"]["job_hosts"] == {"indexfs-svr": ["127.0.0.1"], "indexfs-cli": [address]}
        assert len(d["placement"]["server_addresses"]) == 2
        assert all(a.startswith("127.0.0.1:") for a in d["placement"]["server_addresses"])
    commands = (tmp_path / "work" / "jobs" / "commands.log").read_text().splitlines()
    server, client = [line for line in commands if "indexfs-svr:" in line], [line for line in commands if
                                                                           "indexfs-cli:" in line]
    assert "-hosts 127.0.0.1:1 " in server[0] and "--ip=127.0.0.1 " in server[0]
    assert f"-hosts {address}:1 " in client[0] and "--info_svr_uri=tcp://127.0.0.1:" in client[0]


def test_deltafs_jobs_run_on_every_host(original_smoke, tmp_path):
    bin_dir, hosts = tools_bin(original_smoke), ["localhost", "127.0.0.1"]
    stores = ["--origin", str(tmp_path / "origin"), "--compacted", str(tmp_path / "compacted")]
    for run in ("deltafs-write", "deltafs-compact", "deltafs-read"):
        res = run_original(bin_dir, tmp_path, run, hosts, *stores)
        assert res.returncode == 0, run + res.stderr[-3000:]
        if run == "deltafs-compact":
            compaction = (tmp_path / "work" / "jobs" / "commands.log").read_text()
    expected = {"deltafs-write": 600, "deltafs-compact": 602, "deltafs-read": 600}
    for run, ops in expected.items():
        (d,) = docs(tmp_path / f"{run}.jsonl")
        assert d["ops"] == ops and d["errors"]["total"] == 0, (run, d)
        assert d["placement"]["hosts"] == 2 and all(h == hosts for h in d["placement"]["job_hosts"].values()), run
    (read,) = docs(tmp_path / "deltafs-read.jsonl")
    assert len(read["placement"]["server_addresses"]) == 2
    assert "--ip=127.0.0.1 " in compaction  # its ranks talk to each other on the hosts' network


def test_servers_on_hosts_of_no_common_network_are_refused_in_one_line(original_smoke, tmp_path):
    address = other_address()
    if not address or address.startswith("127."):
        pytest.skip("this host has no IPv4 address besides the loopback to name as a second host")
    res = run_original(tools_bin(original_smoke), tmp_path, "deltafs-read", ["127.0.0.1", address],
                       "--compacted", str(tmp_path / "compacted"))
    assert res.returncode == 1
    assert res.stderr.strip() == (f"original_runs: the original's servers take one address prefix (--ip) for all "
                                  f"their ranks, and hosts 127.0.0.1 (127.0.0.1), {address} ({address}) share none: "
                                  "give a hostfile whose hosts are on one network")


def test_the_configured_hostfile_reaches_the_originals_runs(original_smoke, workflow_in):
    hostfile = workflow_in.path("hostfile")
    with open(hostfile, "w") as f:
        f.write("localhost\n127.0.0.1\n")
    overrides = {"mdworkbench": {"interfaces": []}, "implementations": ["original"], "systems": ["indexfs"],
                 "client_ranks": [2], "repetitions": 1, "mpi": {"mpiexec": "mpiexec", "hostfile": hostfile},
                 "original": {"build": "installed", "bin_dir": tools_bin(original_smoke)}}
    res = workflow_in.run("--until", "validate", overrides=overrides)
    assert res.returncode == 0, res.stderr[-3000:]
    log = open(workflow_in.path("results", "logs", "original", "indexfs", "posix", "c2-s2-n500", "rep1.log")).read()
    assert "-hosts localhost:1 " in log and "-hosts 127.0.0.1:1 " in log
    # across hosts every rank ends through the core's preload library (core/doc/transports.md)
    assert f"-env LD_PRELOAD {os.path.join(REPO, 'build', 'core', 'libdeltameta_mpi_end.so')} " in log
    with open(workflow_in.path("results", "runs", "original", "indexfs", "posix", "c2-s2-n500", "rep1",
                               "phases.jsonl")) as f:
        assert all(json.loads(line)["placement"]["hosts"] == 2 for line in f)
