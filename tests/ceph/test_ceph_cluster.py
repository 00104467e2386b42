"""scripts/ceph-cluster.sh: a throw-away single-node Ceph cluster starts, stores and returns
objects, refuses a taken port or a second start, stops and starts its OSD alone (for the
fault tests, core/tests/integration/test_rados_faults.py), and stops leaving no daemon behind,
never signalling a process that took a PID it recorded;
with --cephfs it adds an active MDS and a file system, stopped and removed with it (also after
the MDS re-executed itself), and a CephFS that cannot start is one line with nothing left running."""
import json
import os
import re
import socket
import subprocess
import time

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO, "scripts", "ceph-cluster.sh")


def cluster(*args, timeout=180):
    return subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, timeout=timeout)


def daemon_pids(d):
    pids = []
    for name in ("mon", "osd", "mds"):
        path = os.path.join(d, name + ".pid")
        if os.path.exists(path):
            pids.append(int(open(path).read()))
    return pids


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return open(f"/proc/{pid}/stat").read().split(")")[1].split()[0] != "Z"


@pytest.fixture
def running(tmp_path):
    d = str(tmp_path / "ceph")
    res = cluster("start", d)
    assert res.returncode == 0, res.stderr
    pids = daemon_pids(d)
    yield d, res.stdout, pids
    cluster("stop", d)
    assert not [p for p in pids if alive(p)]


def test_start_prints_how_to_reach_it_and_stores_objects(running, tmp_path):
    d, out, pids = running
    assert len(pids) == 2 and all(alive(p) for p in pids)
    env = dict(line.split("=", 1) for line in out.split())
    assert env["CEPH_CONF"] == os.path.join(d, "ceph.conf") and env["CEPH_POOL"] == "deltameta"
    payload = tmp_path / "payload"
    payload.write_bytes(os.urandom(3 << 20))
    rados = ["rados", "-c", env["CEPH_CONF"], "-p", env["CEPH_POOL"]]
    subprocess.run(rados + ["put", "obj", str(payload)], check=True, timeout=60)
    got = subprocess.run(rados + ["get", "obj", "-"], check=True, capture_output=True, timeout=60).stdout
    assert got == payload.read_bytes()


def test_second_start_in_the_same_directory_is_refused(running):
    d, _, _ = running
    res = cluster("start", d)
    assert res.returncode != 0 and "already holds a cluster" in res.stderr


def test_taken_port_is_refused(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        res = cluster("start", str(tmp_path / "c"), "--port", str(port))
    assert res.returncode != 0 and f"port {port} on 127.0.0.1 is in use" in res.stderr
    assert daemon_pids(str(tmp_path / "c")) == []


def test_osd_stops_and_starts_alone(running):
    d, _, pids = running
    mon, osd = pids
    killed = cluster("osd-stop", d, "--kill")
    assert killed.returncode == 0, killed.stderr
    assert not alive(osd) and alive(mon) and daemon_pids(d) == [mon]
    started = cluster("osd-start", d)
    assert started.returncode == 0, started.stderr
    again = daemon_pids(d)
    assert len(again) == 2 and again[1] != osd and alive(again[1])
    twice = cluster("osd-start", d)
    assert twice.returncode != 0 and "is running: stop it first" in twice.stderr
    stopped = cluster("osd-stop", d)
    assert stopped.returncode == 0, stopped.stderr
    assert not alive(again[1]) and alive(mon)


def test_stop_never_signals_a_process_that_took_a_recorded_pid(running, tmp_path):
    d, _, pids = running
    other = str(tmp_path / "other")  # PID files naming another cluster's monitor and a stranger
    os.makedirs(other)
    stranger = subprocess.Popen(["sleep", "300"])
    try:
        for name, pid in (("mon", pids[0]), ("osd", stranger.pid)):
            with open(os.path.join(other, name + ".pid"), "w") as f:
                f.write(str(pid))
        stopped = cluster("stop", other)
        assert stopped.returncode == 0, stopped.stderr
        assert alive(pids[0]) and stranger.poll() is None and daemon_pids(other) == []
    finally:
        stranger.kill()
        stranger.wait()


def processes_of(d):
    """Every process whose command line names the cluster directory."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if d.encode() in open(f"/proc/{pid}/cmdline", "rb").read() and alive(int(pid)):
                found.append(int(pid))
        except OSError:
            pass
    return found


def test_cephfs_starts_active_and_stops_leaving_nothing(tmp_path):
    d = str(tmp_path / "ceph")
    res = cluster("start", d, "--cephfs")
    try:
        assert res.returncode == 0, res.stderr
        assert "CEPHFS=deltameta" in res.stdout.split()
        pids = daemon_pids(d)
        assert len(pids) == 3 and all(alive(p) for p in pids) and os.path.isdir(os.path.join(d, "mds"))
        ceph = ["ceph", "-c", os.path.join(d, "ceph.conf"), "--connect-timeout", "20"]
        fs = json.loads(subprocess.run(ceph + ["fs", "ls", "--format=json"], check=True, capture_output=True,
                                       text=True, timeout=30).stdout)
        assert [(f["name"], f["metadata_pool"], f["data_pools"]) for f in fs] == \
            [("deltameta", "deltameta-fs-metadata", ["deltameta-fs-data"])]
        mds = subprocess.run(ceph + ["mds", "stat"], check=True, capture_output=True, text=True, timeout=30).stdout
        assert "=up:active" in mds
    finally:
        stopped = cluster("stop", d)
    assert stopped.returncode == 0, stopped.stderr
    assert not [p for p in pids if alive(p)] and processes_of(d) == []
    assert daemon_pids(d) == [] and not os.path.exists(os.path.join(d, "mds"))


def test_an_mds_that_respawned_stops_with_the_rest(tmp_path):
    # Told to respawn (as it does when the monitors drop it from the map), the MDS re-executes
    # itself under the same PID: its log then holds a second start line naming that PID (not
    # counting the copy in the dump of recent events it writes first, whose lines are indented).
    d = str(tmp_path / "ceph")
    res = cluster("start", d, "--cephfs")
    try:
        assert res.returncode == 0, res.stderr
        mds = daemon_pids(d)[-1]
        ceph = ["ceph", "-c", os.path.join(d, "ceph.conf"), "--connect-timeout", "20"]
        subprocess.run(ceph + ["tell", "mds.a", "respawn"], check=True, capture_output=True, timeout=60)
        log, started = os.path.join(d, "log", "mds.a.log"), re.compile(rf"^\S.* process ceph-mds, pid {mds}$", re.M)
        for _ in range(600):
            if len(started.findall(open(log).read())) == 2:
                break
            time.sleep(0.1)
        assert len(started.findall(open(log).read())) == 2 and alive(mds), (mds, open(log).read()[-3000:])
    finally:
        stopped = cluster("stop", d)
    assert stopped.returncode == 0, stopped.stderr
    assert not alive(mds) and processes_of(d) == [] and daemon_pids(d) == []


def test_cephfs_without_ceph_mds_is_one_line(tmp_path):
    bin_dir = tmp_path / "bin"  # what the script needs before the check, and no ceph-mds
    bin_dir.mkdir()
    for tool in ("ceph-mon", "mkdir", "rm"):
        os.symlink(subprocess.run(["which", tool], capture_output=True, text=True).stdout.strip(), bin_dir / tool)
    res = subprocess.run(["/bin/bash", SCRIPT, "start", str(tmp_path / "c"), "--cephfs"], capture_output=True,
                         text=True, timeout=60, env={"PATH": str(bin_dir)})
    assert res.returncode == 1
    assert res.stderr.splitlines() == \
        ["ceph-cluster: ceph-mds not found (--cephfs needs it): run scripts/install-deps.sh"]
    assert daemon_pids(str(tmp_path / "c")) == []

