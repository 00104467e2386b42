#!/usr/bin/env python3
"""The throw-away Ceph cluster's watchdog, started by RadosStores
(workflows/launch/rados_stores.py) in snakemake's working directory:
  rados_watchdog.py SCRIPT CLUSTER_DIR
It waits until snakemake's end of its stdin closes (snakemake is done with the cluster, or
died however it died), then stops the cluster and removes the markers of its stores."""
import sys

from workflows.launch.rados_stores import remove_markers, stop_daemons


def main():
    sys.stdin.read()
    stop_daemons(*sys.argv[1:])
    remove_markers()


if __name__ == "__main__":
    main()
