#!/usr/bin/env python3
"""Checks and builds the original prototype's tools from its release archive (or source
tree) as rule build_original does (workflows/launch/build_original.py), outside the
workflow: the image's build runs it (docker/original/build.sh, stage original of
docker/Dockerfile):
  build_original_tools.py ARCHIVE OUT_DIR
The archive is checked against config/config.yaml's original.sha256; the tools go to
OUT_DIR/install/bin, the record of what was built from what to OUT_DIR/tools.json, the
build's log to OUT_DIR/build.log."""
import argparse
import os

import yaml

from workflows.launch import original_source
from workflows.launch.build_original import from_source, write_record

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("archive", help=f"the release archive ({original_source.ARCHIVE}) or its source tree")
    ap.add_argument("out_dir", help="where the tools (install/bin) and tools.json go")
    args = ap.parse_args()
    with open(os.path.join(REPO, "config", "config.yaml")) as f:
        sha256 = yaml.safe_load(f)["original"]["sha256"]
    out_dir = os.path.abspath(args.out_dir)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "build.log"), "w") as log:
        record = from_source(os.path.abspath(args.archive), sha256, REPO, os.cpu_count(), out_dir, log)
    write_record(record, "source", os.path.join(out_dir, "tools.json"))


if __name__ == "__main__":
    main()
