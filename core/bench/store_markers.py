#!/usr/bin/env python3
"""The markers of stores kept in Ceph RADOS. The DeltaFS origin and compacted stores that
runs.py's phases hand on to each other are then local directories holding MARKER, a JSON
document naming the store: {"uri": "rados://...", "ceph_conf": "/abs/ceph.conf", "fsid":
...}. runs.py writes and reads them; the workflow, whose rules' outputs they are, removes
those of a cluster that is gone with this program, started by path:
  store_markers.py [--keep CEPH_CONF] DIR...
It removes every marker directory below the DIRs but those naming the cluster of
CEPH_CONF, and prints each one it removed on a line of its own."""
import argparse
import glob
import json
import os
import shutil

MARKER = "store.json"


def write(path, uri, ceph_conf, fsid):
    """Makes `path` the marker directory of the store at `uri` on the cluster of `ceph_conf`."""
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, MARKER), "w") as f:
        json.dump({"uri": uri, "ceph_conf": ceph_conf, "fsid": fsid}, f)
        f.write("\n")


def uri_of(path):
    """The URI of the store that the marker directory `path` names; None if it holds no marker."""
    marker = os.path.join(path, MARKER)
    if not os.path.isfile(marker):
        return None
    with open(marker) as f:
        return json.load(f)["uri"]


def cluster_of(marker):
    """The ceph.conf a marker's store is on, or None if the marker is unreadable."""
    try:
        with open(marker) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    return doc.get("ceph_conf") if isinstance(doc, dict) else None


def forget(dirs, keep=None):
    """Removes the marker directories below `dirs` but those naming the ceph.conf `keep`;
    returns them, in order."""
    gone = []
    for top in dirs:
        for marker in sorted(glob.glob(os.path.join(glob.escape(top), "**", MARKER), recursive=True)):
            if keep is None or cluster_of(marker) != keep:
                shutil.rmtree(os.path.dirname(marker))
                gone.append(os.path.dirname(marker))
    return gone


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--keep", metavar="CEPH_CONF", help="keep the markers of this cluster's stores")
    p.add_argument("dirs", nargs="*", metavar="DIR", help="where to look for marker directories")
    a = p.parse_args()
    for path in forget(a.dirs, a.keep):
        print(path)


if __name__ == "__main__":
    main()
