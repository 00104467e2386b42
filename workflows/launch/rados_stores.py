"""What happens to the RADOS stores (storage: rados, config/README.md "Storage: RADOS")
before the first job and after the last of one snakemake invocation. The Snakefile's
onstart, onsuccess and onerror handlers call RadosStores, so nothing is started or removed
while the workflow is only parsed (a dry run, --report, --lint, or a job's own snakemake
under the Slurm profile).

With an empty rados.conf the workflow runs its own throw-away cluster
(scripts/ceph-cluster.sh: one monitor, one in-memory OSD) in results/ceph for one
invocation. It starts before the first job and stops at the end, on success and on error.
If snakemake itself dies, a watchdog (workflows/bin/rados_watchdog.py) stops it. With the
cephfs system or MD-Workbench's cephfs interface configured it also runs an MDS and the
CephFS `deltameta` (scripts/ceph-cluster.sh --cephfs), which their runs use.

The DeltaFS rules' origin/ and compacted/ outputs are local markers that name RADOS stores
(core/bench/store_markers.py, whose program removes them). A throw-away cluster's data vanishes with it, so its markers
are removed when it stops, by the handlers and by the watchdog. Markers that name no
cluster of this invocation are removed before the first job: another cluster's, or a
throw-away cluster's that went down with its host. Their phases run again when a later
phase needs the store.

The original prototype's runs (implementations listing original) keep their stores in pool
`test` of the same cluster (core/bench/original_rados.py), the throw-away cluster creating
that pool too. When an invocation ends, before the cluster stops, every object of the
original's runs (below rados.prefix's runs/original, by name) is removed from it, and so are
the original's markers: nothing of the original's outlives the invocation, on an existing
cluster either."""
import glob
import os
import shutil
import subprocess
import sys

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger

CLUSTER_LOG = "results/logs/ceph-cluster.log"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WATCHDOG = os.path.join(REPO, "workflows", "bin", "rados_watchdog.py")
STORE_MARKERS = os.path.join(REPO, "core", "bench", "store_markers.py")
ORIGINAL_RADOS = os.path.join(REPO, "core", "bench", "original_rados.py")
ORIGINAL_POOL = "test"  # core/bench/original_rados.py POOL


def daemon_pids(cluster_dir):
    """PIDs of the running daemons of the throw-away cluster in `cluster_dir`, checked by
    command line, so that a stale PID file naming some other process is ignored."""
    pids = []
    for name in ("mon", "osd"):
        try:
            with open(os.path.join(cluster_dir, f"{name}.pid")) as f:
                pid = int(f.read().strip())
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue
        if f"ceph-{name}" in args and cluster_dir in args:
            pids.append(pid)
    return pids


def remove_markers(keep=None, original_only=False):
    """Removes the markers under results/runs/ (ours and the original's, or the original's
    only) other than those naming the ceph.conf `keep`."""
    dirs = sorted(glob.glob("results/runs/original/*/rados"))
    dirs += [] if original_only else sorted(glob.glob("results/runs/*/rados"))
    if not dirs:
        return
    res = subprocess.run([sys.executable, STORE_MARKERS, *(["--keep", keep] if keep else []), *dirs],
                         capture_output=True, text=True, timeout=120)
    if res.returncode != 0:
        raise WorkflowError(f"core/bench/store_markers.py could not remove the markers of RADOS stores: "
                            f"{res.stderr.strip() or res.returncode}")
    for gone in res.stdout.splitlines():
        print(f"RADOS store of {gone} is gone with the cluster that held it: the phase that writes it runs again "
              "when a later phase needs it", file=sys.stderr)


def stop_daemons(script, cluster_dir):
    with open(CLUSTER_LOG, "a") as log:
        subprocess.run(["bash", script, "stop", cluster_dir], stdout=log, stderr=subprocess.STDOUT, timeout=120)


class RadosStores:
    """The stores of one invocation on the cluster of `ceph_conf`: an existing one, or with
    `throwaway` the one this class starts in that file's folder, with a pool named `pool`,
    by `script` (scripts/ceph-cluster.sh); with `original_prefix` (rados.prefix) the original's
    stores too; with `cephfs` the throw-away cluster runs an MDS and a CephFS as well."""

    def __init__(self, ceph_conf, throwaway, pool, script, original_prefix=None, cephfs=False):
        self.conf, self.throwaway, self.pool, self.script = os.path.abspath(ceph_conf), throwaway, pool, script
        self.original_prefix, self.cephfs = original_prefix, cephfs
        self.cluster_dir = os.path.dirname(self.conf)
        self.watchdog = None

    def before_first_job(self):
        remove_markers(keep=None if self.throwaway else self.conf)
        if self.throwaway:
            self.start_cluster()

    def after_last_job(self):
        if self.original_prefix and (not self.throwaway or daemon_pids(self.cluster_dir)):
            self.remove_original_stores()
        if self.throwaway and os.path.isdir(self.cluster_dir):
            self.stop_cluster()

    def remove_original_stores(self):
        """Removes the original's objects (by name, below its runs' folder) and its markers."""
        os.makedirs(os.path.dirname(CLUSTER_LOG), exist_ok=True)
        with open(CLUSTER_LOG, "a") as log:
            res = subprocess.run([sys.executable, ORIGINAL_RADOS, "sweep", self.conf, self.original_prefix],
                                 stdout=log, stderr=subprocess.PIPE, text=True, timeout=900)
            log.write(res.stderr)
        remove_markers(original_only=True)
        if res.returncode != 0:
            logger.error(f"{res.stderr.strip()} (see {CLUSTER_LOG})")

    def start_cluster(self):
        os.makedirs(os.path.dirname(CLUSTER_LOG), exist_ok=True)
        if daemon_pids(self.cluster_dir):  # left by an invocation that could not stop it: it holds no data we need
            self.stop_cluster()
        shutil.rmtree(self.cluster_dir, ignore_errors=True)
        logger.info(f"Starting a throw-away Ceph cluster in results/ceph (scripts/ceph-cluster.sh, log {CLUSTER_LOG}) "
                    f"for RADOS pool {self.pool}")
        with open(CLUSTER_LOG, "a") as log:
            # The watchdog stops the cluster once snakemake's end of its stdin closes: when we
            # are done, or when snakemake dies however it dies. Both live in their own session,
            # so that a Ctrl-C reaches the jobs and snakemake, which then stops the cluster.
            self.watchdog = subprocess.Popen([sys.executable, WATCHDOG, self.script, self.cluster_dir],
                                             stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT,
                                             start_new_session=True)
            try:
                pools = ["--pool", self.pool] + (["--pool", ORIGINAL_POOL] if self.original_prefix else [])
                mds = ["--cephfs"] if self.cephfs else []
                res = subprocess.run(["bash", self.script, "start", self.cluster_dir, *pools, *mds], stdout=log,
                                     stderr=subprocess.STDOUT, start_new_session=True, timeout=300)
                ok = res.returncode == 0
            except subprocess.TimeoutExpired:
                ok = False
        if not ok:
            self.stop_cluster()
            raise WorkflowError(f"the throw-away Ceph cluster did not start (see {CLUSTER_LOG} and results/ceph/log/)")

    def stop_cluster(self):
        """Stops the throw-away cluster and its watchdog, and removes the markers of its stores."""
        stop_daemons(self.script, self.cluster_dir)
        remove_markers()
        if self.watchdog is not None:
            self.watchdog.stdin.close()  # it wakes up, finds nothing to stop and exits
            self.watchdog.wait(timeout=60)
            self.watchdog = None
        logger.info("Stopped the throw-away Ceph cluster in results/ceph")

