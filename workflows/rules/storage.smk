# Where the runs' stores live (config key `storage`): posix, local directories under
# results/runs/, or rados, Ceph RADOS objects under rados://<rados.pool>/<rados.prefix>/...
# (core/bench/runs.py --storage-root), on the cluster of rados.conf or, with an empty
# rados.conf, on a throw-away cluster in results/ceph that lives for one snakemake
# invocation. RADOS_STORES (workflows/launch/rados_stores.py) starts and stops that cluster
# and removes the markers of stores that are gone; the Snakefile's handlers call it. The
# original prototype's runs keep theirs in pool `test` of the same cluster, fixed in its
# source (core/bench/original_rados.py), removed when the invocation ends. The cephfs system
# and MD-Workbench's cephfs interface use the CephFS of the same cluster: the throw-away one
# then runs an MDS (scripts/ceph-cluster.sh --cephfs); an existing one must have a CephFS.
from snakemake.exceptions import WorkflowError

from workflows.launch.rados_stores import ORIGINAL_POOL, RadosStores

RADOS = config["rados"]
THROWAWAY_CLUSTER = STORAGE == "rados" and not RADOS["conf"]
CEPH_CONF = "" if STORAGE != "rados" else "results/ceph/ceph.conf" if THROWAWAY_CLUSTER else RADOS["conf"]
RADOS_ROOT = f"rados://{RADOS['pool']}/{RADOS['prefix']}"
if STORAGE == "rados" and not THROWAWAY_CLUSTER and not os.path.isfile(CEPH_CONF):
    raise WorkflowError(
        f"rados.conf: {CEPH_CONF} is not a file: set it to the ceph.conf of a running cluster, "
        "or leave it empty for a throw-away cluster"
    )
RADOS_STORES = (
    RadosStores(
        CEPH_CONF,
        THROWAWAY_CLUSTER,
        RADOS["pool"],
        os.path.join(REPO, "scripts", "ceph-cluster.sh"),
        RADOS["prefix"] if "original" in IMPLS else None,
        cephfs=CEPHFS,
    )
    if STORAGE == "rados"
    else None
)


def storage_options():
    """runs.py options of every run rule: RADOS locations below results/ mirror the local paths
    (nothing for posix, whose command lines stay as they were)."""
    if STORAGE != "rados":
        return ""
    return f" --storage-root {RADOS_ROOT} --storage-base results --ceph-conf {CEPH_CONF}"


def original_storage_options():
    """original_runs.py's: as storage_options(), in the pool the original's tools use."""
    if STORAGE != "rados":
        return ""
    return f" --storage-root rados://{ORIGINAL_POOL}/{RADOS['prefix']} --storage-base results --ceph-conf {CEPH_CONF}"


def storage_output(path):
    """A DeltaFS store written by a run: the store itself (posix) or a marker directory naming its
    RADOS location, temporary because a throw-away cluster's data does not outlive it."""
    return temp(directory(path)) if STORAGE == "rados" else directory(path)


def storage_provenance():
    if STORAGE != "rados":
        return {"backend": STORAGE}
    mds = ", one MDS and the CephFS deltameta" if CEPHFS else ""
    cluster = (
        f"throw-away: scripts/ceph-cluster.sh (one monitor, one in-memory OSD{mds}) in results/ceph, "
        "for one snakemake invocation"
        if THROWAWAY_CLUSTER
        else f"existing: {os.path.abspath(CEPH_CONF)}"
    )
    original = {"original_root": f"rados://{ORIGINAL_POOL}/{RADOS['prefix']}"} if "original" in IMPLS else {}
    return {"backend": "rados", "root": RADOS_ROOT, "cluster": cluster, **original}
