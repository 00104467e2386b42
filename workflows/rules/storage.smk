# Where the runs' stores live (config key `storage`): posix, local directories under
# results/runs/, or rados, Ceph RADOS objects under rados://<rados.pool>/<rados.prefix>/...
# (core/bench/runs.py --storage-root). With rados and an empty rados.conf the workflow runs
# its own throw-away cluster (scripts/ceph-cluster.sh: one monitor, one in-memory OSD) in
# results/ceph for the duration of one snakemake invocation: started before the first job,
# stopped at the end on success and on error, and by a watchdog process if snakemake itself
# dies. Its data vanishes with it, so the DeltaFS stores' markers (runs.py MARKER) that name
# a cluster which is gone are removed here, before the DAG is built: the phases that wrote
# them run again.
import glob
import shutil
import subprocess
import sys

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger

CEPH_SCRIPT = os.path.join(REPO, "scripts", "ceph-cluster.sh")
CEPH_DIR = os.path.abspath("results/ceph")
CEPH_LOG = "results/logs/ceph-cluster.log"
RADOS = config["rados"]
THROWAWAY_CLUSTER = STORAGE == "rados" and not RADOS["conf"]
CEPH_CONF = "" if STORAGE != "rados" else "results/ceph/ceph.conf" if THROWAWAY_CLUSTER else RADOS["conf"]
RADOS_ROOT = f"rados://{RADOS['pool']}/{RADOS['prefix']}"
if STORAGE == "rados" and not THROWAWAY_CLUSTER and not os.path.isfile(CEPH_CONF):
    raise WorkflowError(
        f"rados.conf: {CEPH_CONF} is not a file: set it to the ceph.conf of a running cluster, "
        "or leave it empty for a throw-away cluster"
    )
STORE_MARKER = "store.json"  # core/bench/runs.py MARKER


def storage_options():
    """runs.py options of every run rule: RADOS locations below results/ mirror the local paths
    (nothing for posix, whose command lines stay as they were)."""
    if STORAGE != "rados":
        return ""
    return f" --storage-root {RADOS_ROOT} --storage-base results --ceph-conf {CEPH_CONF}"


def storage_output(path):
    """A DeltaFS store written by a run: the store itself (posix) or a marker directory naming its
    RADOS location, temporary because a throw-away cluster's data does not outlive it."""
    return temp(directory(path)) if STORAGE == "rados" else directory(path)


def storage_provenance():
    if STORAGE != "rados":
        return {"backend": STORAGE}
    cluster = (
        "throw-away: scripts/ceph-cluster.sh (one monitor, one in-memory OSD) in results/ceph, "
        "for one snakemake invocation"
        if THROWAWAY_CLUSTER
        else f"existing: {os.path.abspath(CEPH_CONF)}"
    )
    return {"backend": "rados", "root": RADOS_ROOT, "cluster": cluster}


def conf_fsid(conf):
    try:
        with open(conf) as f:
            for line in f:
                key, _, value = line.partition("=")
                if key.strip() == "fsid":
                    return value.strip()
    except OSError:
        pass
    return None


def daemon_pids():
    """PIDs of the throw-away cluster's daemons that are running (checked by command line,
    so a stale PID file naming some other process is ignored)."""
    pids = []
    for name in ("mon", "osd"):
        try:
            with open(os.path.join(CEPH_DIR, f"{name}.pid")) as f:
                pid = int(f.read().strip())
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue
        if f"ceph-{name}" in args and CEPH_DIR in args:
            pids.append(pid)
    return pids


def marker_is_valid(marker):
    try:
        with open(marker) as f:
            m = json.load(f)
    except (OSError, ValueError):
        return False
    conf = os.path.abspath(CEPH_CONF)
    if not isinstance(m, dict) or m.get("ceph_conf") != conf:
        return False
    if THROWAWAY_CLUSTER:  # only while the cluster that holds the data is up
        return bool(daemon_pids()) and m.get("fsid") == conf_fsid(conf)
    return True


def void_stale_markers():
    if STORAGE != "rados":
        return
    pattern = "results/runs/deltafs/rados/*/rep*/"
    for marker in sorted(
        glob.glob(f"{pattern}origin/{STORE_MARKER}") + glob.glob(f"{pattern}r*/compacted/{STORE_MARKER}")
    ):
        if not marker_is_valid(marker):
            shutil.rmtree(os.path.dirname(marker))
            print(
                f"RADOS store of {os.path.dirname(marker)} is gone with the cluster that held it: "
                "the phase that writes it runs again",
                file=sys.stderr,
            )


void_stale_markers()

_watchdog = None


def stop_cluster():
    """Stops the throw-away cluster (if running) and its watchdog."""
    global _watchdog
    if not os.path.isdir(CEPH_DIR):
        return
    with open(CEPH_LOG, "a") as log:
        subprocess.run(["bash", CEPH_SCRIPT, "stop", CEPH_DIR], stdout=log, stderr=subprocess.STDOUT, timeout=120)
    if _watchdog is not None:
        _watchdog.stdin.close()  # it wakes up, finds nothing to stop and exits
        _watchdog.wait(timeout=60)
        _watchdog = None
    logger.info("Stopped the throw-away Ceph cluster in results/ceph")


def start_cluster():
    global _watchdog
    os.makedirs(os.path.dirname(CEPH_LOG), exist_ok=True)
    if daemon_pids():  # left by an invocation that could not stop it: it holds no data we need
        stop_cluster()
    shutil.rmtree(CEPH_DIR, ignore_errors=True)
    logger.info(
        "Starting a throw-away Ceph cluster in results/ceph (scripts/ceph-cluster.sh, log "
        f"{CEPH_LOG}) for RADOS pool {RADOS['pool']}"
    )
    with open(CEPH_LOG, "a") as log:
        # The watchdog stops the cluster once snakemake's end of its stdin closes: when we
        # are done, or when snakemake dies however it dies. Both live in their own session,
        # so that a Ctrl-C reaches the jobs and snakemake, which then stops the cluster.
        _watchdog = subprocess.Popen(
            ["bash", "-c", 'cat >/dev/null; exec bash "$0" stop "$1"', CEPH_SCRIPT, CEPH_DIR],
            stdin=subprocess.PIPE,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            res = subprocess.run(
                ["bash", CEPH_SCRIPT, "start", CEPH_DIR, "--pool", RADOS["pool"]],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                timeout=300,
            )
            ok = res.returncode == 0
        except subprocess.TimeoutExpired:
            ok = False
    if not ok:
        stop_cluster()
        raise WorkflowError(f"the throw-away Ceph cluster did not start (see {CEPH_LOG} and results/ceph/log/)")


onstart:
    if THROWAWAY_CLUSTER:
        start_cluster()


onsuccess:
    if THROWAWAY_CLUSTER:
        stop_cluster()


onerror:
    if THROWAWAY_CLUSTER:
        stop_cluster()
