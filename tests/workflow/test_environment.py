"""The environment probe (workflows/environment/) on recorded /proc/stat, /proc/loadavg and
mountinfo texts, its conditions and its lines; and on this machine: `/`, /dev/shm, and a
tmpfs and an overlay mounted for the test in a mount namespace of its own (skipped, with
the reason, where this process may not make one)."""
import json
import os
import shutil
import subprocess
import sys

import pytest
from workflow_helpers import REPO, mount_namespace

from workflows.claims.check import load_claims
from workflows.environment import conditions, cpu, mounts, preflight, shm

# /proc/stat of a 2-CPU VM, 1 s apart: 120 of 200 ticks busy, 10 of them stolen, 5 in iowait
STAT_BEFORE = """cpu  1000 10 500 8000 100 0 20 50 0 0
cpu0 500 5 250 4000 50 0 10 25 0 0
cpu1 500 5 250 4000 50 0 10 25 0 0
intr 123456 0 0
ctxt 987654
"""
STAT_AFTER = """cpu  1080 10 520 8075 105 0 30 60 0 0
cpu0 540 5 260 4037 53 0 15 30 0 0
cpu1 540 5 260 4038 52 0 15 30 0 0
"""
# A kernel from before steal was counted: four columns after "cpu" only
STAT_OLD_BEFORE = "cpu  100 0 50 850\n"
STAT_OLD_AFTER = "cpu  130 0 60 910\n"
LOADAVG = "3.10 2.05 1.50 3/412 98765\n"
# A Docker container on fuse-overlayfs (rootless), with a bind-mounted ext4 folder whose name
# has a space, an NFS home, a tmpfs and a second /dev/shm mounted over the first
MOUNTINFO = r"""612 551 0:52 / / rw,relatime - fuse.fuse-overlayfs fuse-overlayfs rw,user_id=0,group_id=0
613 612 0:55 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
614 612 0:56 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755
615 614 0:57 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k
616 612 254:1 /home/me/my\040out /out rw,relatime - ext4 /dev/vda1 rw
617 612 0:60 / /home rw,relatime shared:5 master:2 - nfs4 server:/export/home rw,vers=4.2
618 612 0:61 / /scratch rw - tmpfs tmpfs rw,size=1g
619 612 0:62 / /var/lib/data rw - overlay overlay rw,lowerdir=/a,upperdir=/b,workdir=/c
620 614 0:63 / /dev/shm rw - tmpfs shm rw,size=1048576k
621 612 0:64 / /mnt/ceph rw - ceph 10.0.0.1:/ rw,name=admin
"""


def test_busy_share_counts_everything_but_idle_and_iowait_steal_included():
    share = cpu.busy_share(cpu.cpu_ticks(STAT_BEFORE), cpu.cpu_ticks(STAT_AFTER))
    assert share == {"busy": pytest.approx(120 / 200), "steal": pytest.approx(10 / 200)}


def test_busy_share_without_steal_where_the_kernel_does_not_count_it():
    share = cpu.busy_share(cpu.cpu_ticks(STAT_OLD_BEFORE), cpu.cpu_ticks(STAT_OLD_AFTER))
    assert share == {"busy": pytest.approx(40 / 100), "steal": None}


def test_cpu_ticks_needs_the_aggregate_line():
    with pytest.raises(ValueError, match="aggregate cpu line"):
        cpu.cpu_ticks("cpu0 1 2 3 4\n")


def test_load_average():
    assert cpu.load_average(LOADAVG) == [3.10, 2.05, 1.50]


@pytest.mark.parametrize("path, point, fs_type, kind", [
    ("/work/deltameta/results", "/", "fuse.fuse-overlayfs", mounts.OVERLAY_OR_FUSE),
    ("/out/results/runs", "/out", "ext4", mounts.LOCAL_DISK),
    ("/out", "/out", "ext4", mounts.LOCAL_DISK),
    ("/outside", "/", "fuse.fuse-overlayfs", mounts.OVERLAY_OR_FUSE),
    ("/home/me/deltameta", "/home", "nfs4", mounts.NETWORK),
    ("/scratch/results", "/scratch", "tmpfs", mounts.TMPFS),
    ("/var/lib/data/x", "/var/lib/data", "overlay", mounts.OVERLAY_OR_FUSE),
    ("/dev/shm", "/dev/shm", "tmpfs", mounts.TMPFS),
    ("/mnt/ceph/results", "/mnt/ceph", "ceph", mounts.NETWORK),
])
def test_the_longest_mount_point_holds_a_path(path, point, fs_type, kind):
    found = mounts.mount_of(path, MOUNTINFO)
    assert (found["mount_point"], found["fs_type"], found["kind"]) == (point, fs_type, kind)


def test_a_later_mount_on_the_same_point_hides_the_earlier_and_escapes_are_decoded():
    assert mounts.mount_of("/dev/shm", MOUNTINFO)["source"] == "shm"
    assert ("/out", "ext4", "/dev/vda1") in mounts.mounts(MOUNTINFO)
    listed = [m for m in mounts.mounts(r"1 0 1:2 /my\040dir /my\040dir rw - xfs /dev/sdb rw")]
    assert listed == [("/my dir", "xfs", "/dev/sdb")]


@pytest.mark.parametrize("fs_type, kind", [
    ("xfs", mounts.LOCAL_DISK), ("btrfs", mounts.LOCAL_DISK), ("tmpfs", mounts.TMPFS),
    ("fuse.sshfs", mounts.NETWORK), ("fuse.rclone", mounts.OVERLAY_OR_FUSE), ("nfs", mounts.NETWORK),
    ("virtiofs", mounts.NETWORK), ("squashfs", mounts.UNKNOWN),
])
def test_kinds_of_file_system_types(fs_type, kind):
    assert mounts.kind(fs_type) == kind


# the strictest of paper/claims.yaml's conditions, as the pre-flight checks them
CONDITIONS = conditions.strictest(load_claims(os.path.join(REPO, "paper", "claims.yaml"))["claims"])


def findings(other=0.02, store_type="ext4", shm_free=1 << 30):
    return {
        "cores": {"given": 2, "available": 2},
        "cpu": {"interval_s": 1.0, "busy": other, "steal": 0.0, "load": [0.1, 0.2, 0.3], "other": other},
        "stores": {"results/smoke/": {"path": "/r/results/smoke", "mount_point": "/", "fs_type": store_type,
                                      "source": "x", "kind": mounts.kind(store_type)}},
        "shm": {"size_bytes": 1 << 30, "free_bytes": shm_free},
    }


def test_an_idle_machine_with_local_stores_meets_every_condition():
    assert conditions.outside(findings(), CONDITIONS) == []
    assert conditions.outside(findings(store_type="tmpfs"), CONDITIONS) == []


def test_each_condition_outside_its_bound_is_named_with_its_value_and_fix():
    busy = conditions.outside(findings(other=0.58), CONDITIONS)
    assert busy == [("other processes used 58% of the CPUs over 1 s, more than the claims' 10%",
                     "rerun on an otherwise idle machine")]
    fuse = conditions.outside(findings(store_type="fuse.fuse-overlayfs"), CONDITIONS)
    assert len(fuse) == 1 and fuse[0][0] == "results/smoke/ is on fuse.fuse-overlayfs (overlay or FUSE, mounted at /)"
    assert "local disk" in fuse[0][1]
    assert "nfs4 (network" in conditions.outside(findings(store_type="nfs4"), CONDITIONS)[0][0]
    small = conditions.outside(findings(shm_free=16 << 20), CONDITIONS)
    assert len(small) == 1 and small[0][0].startswith("/dev/shm 16 MiB free, under the 64 MiB")


def test_the_block_and_the_stop_line():
    lines = preflight.block(findings(other=0.58))
    assert lines[0] == ("pre-flight: 2 cores given to snakemake, 2 available; the machine was 58% busy over 1 s "
                        "(steal 0%), load average 0.10 0.20 0.30")
    assert lines[1:] == ["pre-flight: results/smoke/ on ext4 at / (local disk)",
                         "pre-flight: /dev/shm 1.0 GiB, 1.0 GiB free"]
    one = conditions.outside(findings(other=0.58), CONDITIONS)
    assert preflight.stop_line(one) == ("pre-flight: other processes used 58% of the CPUs over 1 s, more than the "
                                        "claims' 10% (rerun on an otherwise idle machine, or drop strict_environment)")
    two = conditions.outside(findings(other=0.58, store_type="nfs"), CONDITIONS)
    assert preflight.stop_line(two) == (
        "pre-flight: other processes used 58% of the CPUs over 1 s, more than the claims' 10% (rerun on an otherwise "
        "idle machine); results/smoke/ is on nfs (network, mounted at /) (run with results/ on a local disk file "
        'system or tmpfs, e.g. in a container on a bind-mounted host folder: docker run -v "$PWD/out:/out", or drop '
        "strict_environment)")


def test_preflight_records_its_findings_and_says_whether_to_go_on(tmp_path, capsys):
    record = str(tmp_path / "results" / "x" / "preflight.json")
    go_on = preflight.preflight(2, {"results/x/": str(tmp_path)}, record, strict=True, conditions=CONDITIONS,
                                interval_s=0.2)
    with open(record) as f:
        found = json.load(f)
    assert go_on == (found["outside"] == [])
    assert found["stores"]["results/x/"]["path"] == os.path.realpath(tmp_path)
    assert found["conditions"] == CONDITIONS
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("pre-flight: 2 cores given to snakemake")
    assert 0 <= found["cpu"]["busy"] <= 1 and found["cpu"]["other"] == found["cpu"]["busy"]


def findmnt(path):
    return subprocess.run(["findmnt", "-n", "-o", "TARGET,FSTYPE", "--target", path], capture_output=True,
                          text=True, check=True).stdout.split()


@pytest.mark.skipif(not shutil.which("findmnt"), reason="findmnt (util-linux) is not installed")
def test_this_machines_root_as_findmnt_sees_it():
    found = mounts.file_system("/")
    assert [found["mount_point"], found["fs_type"]] == findmnt("/")


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="this machine has no /dev/shm")
def test_this_machines_dev_shm_is_a_tmpfs():
    assert mounts.file_system("/dev/shm")["kind"] == mounts.TMPFS
    found = shm.dev_shm()
    assert 0 < found["free_bytes"] <= found["size_bytes"]


def test_a_real_tmpfs_and_overlay_are_classified_and_the_overlay_named(tmp_path):
    options = mount_namespace()
    top = tmp_path / "mnt"
    top.mkdir()
    probe = ("import json, sys; from workflows.environment import conditions, mounts; "
             "fs = {p: mounts.file_system(p) for p in sys.argv[1:]}; print(json.dumps(fs))")
    script = (f"mount -t tmpfs -o size=4m tmpfs {top} && mkdir {top}/lower {top}/upper {top}/work {top}/over && "
              f"mount -t overlay overlay -o lowerdir={top}/lower,upperdir={top}/upper,workdir={top}/work {top}/over "
              f"&& {sys.executable} -c '{probe}' {top}/upper {top}/over/results")
    res = subprocess.run(["unshare", *options, "sh", "-c", script], capture_output=True, text=True, cwd=REPO)
    if res.returncode != 0 and "mount" in res.stderr:
        pytest.skip(f"cannot mount a tmpfs and an overlay here: {res.stderr.strip()}")
    assert res.returncode == 0, res.stderr
    fs = json.loads(res.stdout)
    assert (fs[f"{top}/upper"]["fs_type"], fs[f"{top}/upper"]["kind"]) == ("tmpfs", mounts.TMPFS)
    over = fs[f"{top}/over/results"]
    assert (over["fs_type"], over["kind"], over["mount_point"]) == ("overlay", mounts.OVERLAY_OR_FUSE, f"{top}/over")
    named = conditions.outside(dict(findings(), stores={"results/": over}), CONDITIONS)
    assert named[0][0] == f"results/ is on overlay (overlay or FUSE, mounted at {top}/over)"
