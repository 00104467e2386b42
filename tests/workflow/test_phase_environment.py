"""The environment of every phase: core/bench/runs.py (run by path, as the workflow, ctest and
a user run it) puts the machine's readings around each phase into its document, and
summary.csv's environment columns come out of them (workflows/environment/phase.py): on
recorded readings, on a real run on this machine, and beside two CPU hogs, whose share
the other processes' column must show; and processes that serve a run from outside its
process tree (the Ceph daemons of RADOS stores) counted as its own, and the CPU of servers not
of ours (CephFS's MDS) per phase."""
import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone

import pytest
from workflow_helpers import REPO, with_pythonpath
from mpijobs import Sampler, procs
from mpijobs import sampler as sampler_module

from workflows.environment import mounts
from workflows.environment.phase import ENVIRONMENT_COLUMNS, environment_columns
from workflows.results.runs import COLUMNS

TOOLS = os.path.join(REPO, "build", "core")
# 2 CPUs over 1 s (200 ticks): 150 busy, 10 of them stolen; the run's own processes used 0.5 CPU s
READINGS = [[100.0, "cpu  1000 0 500 8000 100 0 0 50 0 0", 0.5, 10.0],
            [100.5, "cpu  1040 0 520 8030 100 0 0 55 0 0", 1.5, 10.2],
            [101.0, "cpu  1120 0 520 8050 100 0 0 60 0 0", 0.9, 10.5]]


def doc(**kw):
    return dict({"phase": "insert", "ranks": 2, "elapsed_s": 1.0, "cpu_s": {"clients": 0.3, "servers": 0.2},
                 "environment": {"period_s": 0.5, "readings": READINGS, "shm": {"size_bytes": 1 << 30,
                                                                                "free_bytes": 512 << 20}}}, **kw)


def test_recorded_readings_give_the_phases_environment(tmp_path):
    cols = environment_columns(doc(storage={"backend": "posix", "stores": {"servers": str(tmp_path / "svr")}}), 2)
    assert cols["cpu_other_share"] == pytest.approx((150 - 50) / 200)  # busy less the run's own 0.5 s
    assert cols["cpu_steal_share"] == pytest.approx(10 / 200)
    assert cols["load_max"] == 1.5 and cols["shm_free_mib"] == 512
    assert cols["cpu_own_share"] == pytest.approx(0.5 / (1.0 * 4))  # 2 client ranks + 2 servers
    fs = mounts.file_system(str(tmp_path))
    assert (cols["store_fs"], cols["store_kind"]) == (fs["fs_type"], fs["kind"])
    assert set(ENVIRONMENT_COLUMNS) <= set(COLUMNS)


def test_the_other_processes_share_allows_for_the_readings_resolution():
    """A 0.1 s phase on an idle machine, as recorded: 20 ticks, 14 busy, the run's own CPU
    read as 0.11 s with 3 processes read at the end (each may have lost up to a tick) and the
    first reading taking 5 ms (up to 1 tick more of the run's CPU read late): none of it is
    surely the other processes', where busy less own alone would say 15%."""
    idle = [[100.0, "cpu  1000 0 500 8000 100 0 0 0 0 0", 0.1, 10.0, 4, 0.005],
            [100.1, "cpu  1010 0 504 8006 100 0 0 0 0 0", 0.1, 10.11, 3, 0.004]]
    assert environment_columns(doc(environment={"readings": idle}), 1)["cpu_other_share"] == 0.0
    # with two CPU hogs beside it the same phase shows them, less the resolution's 4 ticks
    busy = [idle[0], [100.1, "cpu  1016 0 504 8000 100 0 0 0 0 0", 2.1, 10.11, 3, 0.004]]
    assert environment_columns(doc(environment={"readings": busy}), 1)["cpu_other_share"] == pytest.approx(5 / 20)
    # readings made before they carried their bounds are taken as they are
    old = [r[:4] for r in busy]
    assert environment_columns(doc(environment={"readings": old}), 1)["cpu_other_share"] == pytest.approx(9 / 20)


def test_the_other_processes_share_is_never_more_than_the_busy_share():
    """Readings whose own CPU falls (a process of the run's tree that ended while the tree
    was read, recorded before the sampler kept the series from falling): the other
    processes' share is at most the busy share (it once read 1.017 of the CPUs)."""
    falling = [[100.0, "cpu  1000 0 500 8000 100 0 0 0 0 0", 2.0, 10.5, 4, 0.0],
               [101.0, "cpu  1190 0 510 8000 100 0 0 0 0 0", 2.0, 10.2, 3, 0.0]]
    # all 200 ticks busy; the run's own CPU taken as none, less the 3 processes' resolution
    # (it read -0.3 s: 1.135 of the CPUs before)
    assert environment_columns(doc(environment={"readings": falling}), 1)["cpu_other_share"] == pytest.approx(0.985)


def test_the_samplers_readings_of_the_runs_cpu_never_fall(monkeypatch):
    """A reading that misses a process ended mid-read reads less CPU than the one before:
    the sampler keeps the higher, so the run's own CPU over a phase is never negative."""
    series = iter([(5.0, 3), (4.9, 2), (5.2, 3)])  # the tree's CPU seconds, processes read
    monkeypatch.setattr(sampler_module, "_tree_cpu_s", lambda: next(series))
    sampler = Sampler()
    for _ in range(3):
        sampler.read()
    assert [r[3] for r in sampler.readings] == [5.0, 5.0, 5.2]
    assert [r[4] for r in sampler.readings] == [4, 3, 4]


def test_results_without_readings_leave_the_columns_empty():
    cols = environment_columns(doc(environment=None, storage={"backend": "rados", "stores": {}}), 2)
    assert cols["cpu_other_share"] == "" and cols["shm_free_mib"] == "" and cols["store_kind"] == "rados"


def run_indexfs(tmp_path, n=20000):
    if not os.access(os.path.join(TOOLS, "deltameta_client"), os.X_OK):
        pytest.skip(f"no core built in {TOOLS}")
    out = tmp_path / "o.jsonl"
    res = subprocess.run([sys.executable, os.path.join(REPO, "core", "bench", "runs.py"), "indexfs", "--bin", TOOLS,
                          "--ranks", "1", "--servers", "1", "--n", str(n), "--work", str(tmp_path / "w"), "--out",
                          str(out), "--log", str(tmp_path / "l.log")], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_runs_py_by_path_records_the_readings_around_every_phase(tmp_path):
    started = time.monotonic()
    docs = run_indexfs(tmp_path)
    run_s = time.monotonic() - started
    assert [d["phase"] for d in docs] == ["insert", "lstat"]
    for d in docs:
        readings = d["environment"]["readings"]
        assert len(readings) >= 2 and readings[0][0] < readings[-1][0]
        assert readings[-1][0] - readings[0][0] >= d["elapsed_s"]  # the readings cover the phase
        # from the last reading before its start to the first after its end (written just after it)
        assert readings[0][0] <= d["finished_at_unix_s"] - d["elapsed_s"] and readings[-1][0] >= d["finished_at_unix_s"]
        assert readings[1][0] > d["finished_at_unix_s"] - d["elapsed_s"] and readings[-2][0] < d["finished_at_unix_s"]
        assert readings[0][1].startswith("cpu ") and readings[-1][3] > readings[0][3]  # the run's CPU grew
        # processes read; the reading's seconds, within the run (more than 1 s on a busy machine)
        assert all(r[4] >= 1 and 0 <= r[5] < run_s for r in readings)
        cols = environment_columns(d, 1)
        assert 0 <= cols["cpu_other_share"] <= 1 and 0 < cols["cpu_own_share"] <= 1
        assert cols["store_kind"] == mounts.file_system(str(tmp_path))["kind"]


def test_two_cpu_hogs_show_as_other_processes_share(tmp_path, two_cpu_hogs):
    for d in run_indexfs(tmp_path, n=50000):
        assert environment_columns(d, 1)["cpu_other_share"] > 0.3, d["phase"]


SAMPLE_SERVING = """
import json, sys, time
from mpijobs import Sampler, procs
pid = int(sys.argv[1])
assert pid in procs.named(("yes",))
before = procs.cpu_seconds(pid)
with Sampler(period=0.2, serving=lambda: [pid]) as serving, Sampler(period=0.2) as alone:
    time.sleep(1.5)
print(json.dumps({"yes": procs.cpu_seconds(pid) - before,
                  "serving": serving.readings[-1][3] - serving.readings[0][3],
                  "alone": alone.readings[-1][3] - alone.readings[0][3]}))
"""


def test_processes_serving_the_run_count_as_its_own():
    """With RADOS stores, this machine's Ceph daemons work for the run outside its process
    tree (runs.py's Sampler(serving=...)): here a `yes` orphaned to init stands for them."""
    pid = int(subprocess.run(["sh", "-c", "yes >/dev/null 2>&1 & echo $!"], capture_output=True, text=True,
                             check=True).stdout)
    try:
        res = subprocess.run([sys.executable, "-c", SAMPLE_SERVING, str(pid)], capture_output=True, text=True,
                             timeout=60, env=with_pythonpath())
    finally:
        os.kill(pid, signal.SIGKILL)
    assert res.returncode == 0, res.stderr
    cpu = json.loads(res.stdout)
    assert cpu["yes"] > 0.05, cpu
    assert cpu["serving"] - cpu["alone"] == pytest.approx(cpu["yes"], abs=0.05), cpu
    deadline = time.monotonic() + 10
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not running(pid), "the orphaned yes outlived its test"


def running(pid):
    """Whether `pid` still runs: neither gone nor a zombie its new parent has yet to reap."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


SAMPLE_ENDING = """
import json, os, sys, time
from mpijobs import Sampler
pid = int(sys.argv[1])
with Sampler(period=0.1, serving=lambda: [pid]) as sampler:
    print("watching", flush=True)  # its first reading is taken
    deadline = time.monotonic() + 60
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # readings after it ended
print(json.dumps([r[3] for r in sampler.readings]))
"""


def test_a_serving_process_that_ends_takes_back_none_of_its_cpu():
    """A Ceph daemon of another cluster (a busy machine's other tests) may end during a
    phase: the run's own CPU keeps what it counted of it and never falls (it once fell by
    the daemon's whole CPU time, which made other processes' share more than every CPU).
    Here a `yes` of this test's, ended and reaped while the sampler watches it, once it has
    used some CPU under watch (waited for, not slept for: on a busy machine it may get
    little)."""
    hog = subprocess.Popen(["yes"], stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.3)  # CPU used before the sampler starts is not the run's
        sampler = subprocess.Popen([sys.executable, "-c", SAMPLE_ENDING, str(hog.pid)], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True,
                                   env=with_pythonpath())
        assert sampler.stdout.readline() == "watching\n", sampler.stderr.read()
        watched_from = procs.cpu_seconds(hog.pid)
        deadline = time.monotonic() + 60
        while procs.cpu_seconds(hog.pid) - watched_from < 0.3:
            assert time.monotonic() < deadline, "the yes got no 0.3 s of CPU within 60 s"
            time.sleep(0.05)
        used = procs.cpu_seconds(hog.pid)
    finally:
        hog.kill()
        hog.wait()
    out, err = sampler.communicate(timeout=120)
    assert sampler.returncode == 0, err
    own = json.loads(out)
    assert all(b >= a for a, b in zip(own, own[1:], strict=False)), own
    assert 0.05 < own[-1] - own[0] < used + 0.2, (own, used)


def test_only_the_runs_clusters_daemons_serve_it(tmp_path):
    """procs.ceph_daemons(conf): the Ceph daemons started with the run's configuration file,
    not another cluster's on the same machine (processes named as Ceph's daemons, running a
    script that sleeps, stand in for the daemons' names and arguments)."""
    started = []
    try:
        for name, conf in (("ceph-mon", "ours.conf"), ("ceph-osd", "ours.conf"), ("ceph-osd", "theirs.conf")):
            script = tmp_path / conf.split(".")[0] / name
            script.parent.mkdir(exist_ok=True)
            script.write_text("#!/bin/sh\nsleep 30\n")
            script.chmod(0o755)
            started.append(subprocess.Popen([str(script), "-c", str(tmp_path / conf), "-f"]))
        deadline = time.monotonic() + 10
        while len(procs.named(procs.CEPH_DAEMONS)) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        ours = set(procs.ceph_daemons(str(tmp_path / "ours.conf")))
        assert {p.pid for p in started[:2]} <= ours and started[2].pid not in ours, (ours, [p.pid for p in started])
    finally:
        for p in started:
            p.kill()
            p.wait()



SAMPLE_SERVERS = """
import json, sys, time
from mpijobs import Sampler
pid = int(sys.argv[1])
with Sampler(period=0.1, servers=lambda: [pid]) as sampler:
    time.sleep(1.0)
print(json.dumps(sampler.servers_cpu({})))
"""


def test_a_phases_servers_cpu_is_what_they_used_around_it():
    """CephFS's MDS is no process of the run's, so its CPU per phase is sampled from /proc
    (runs.py mds_cpu, Sampler(servers=...)): a `yes` standing for it counts as one process,
    by what it used while watched; over a phase, what it used from the phase's start to its
    end (finished_at_unix_s; finished_at's whole seconds in older documents), interpolated
    between the readings around them."""
    pid = int(subprocess.run(["sh", "-c", "yes >/dev/null 2>&1 & echo $!"], capture_output=True, text=True,
                             check=True).stdout)
    try:
        before = procs.cpu_seconds(pid)
        res = subprocess.run([sys.executable, "-c", SAMPLE_SERVERS, str(pid)], capture_output=True, text=True,
                             timeout=60, env=with_pythonpath())
        used = procs.cpu_seconds(pid) - before
    finally:
        os.kill(pid, signal.SIGKILL)
    assert res.returncode == 0, res.stderr
    seconds, processes = json.loads(res.stdout)
    assert processes == 1 and 0.02 < seconds <= used + 0.02, (seconds, processes, used)
    # readings at 100, 101, ... 110 s, the servers' CPU 0.5 s more at each
    sampler = Sampler()
    sampler.readings = [[100.0 + i, "", 0.0, 0.0, 1, 0.0] for i in range(11)]
    sampler.servers_read = [(0.5 * i, 1) for i in range(11)]
    phase = {"finished_at": datetime.fromtimestamp(105, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S%z"),
             "elapsed_s": 2.0}
    assert sampler.servers_cpu(phase) == (1.5, 1)  # 103 (start) to 106 (end, rounded up a second)
    assert sampler.servers_cpu(dict(phase, finished_at_unix_s=105.5)) == (1.0, 1)  # 103.5 to 105.5, interpolated
    assert sampler.servers_cpu({}) == (5.0, 1)


def test_sampled_servers_count_as_processes_of_the_phase():
    """A cephfs phase (no servers of ours: 0 in its coordinates) with its MDS's CPU sampled:
    the phase's own share divides by its ranks and the MDS processes read."""
    cephfs = doc(cpu_s={"clients": 0.3, "servers": 0.2}, servers_sampled={"names": ["ceph-mds"], "processes": 1})
    assert environment_columns(cephfs, 0)["cpu_own_share"] == pytest.approx(0.5 / (1.0 * 3))
