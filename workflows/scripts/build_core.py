"""Snakemake script of rule build_core: builds the core with CMake (or checks an installed
bin_dir) and records where the tools are and what they are in results/core/tools.json."""
import json
import os
import subprocess
import sys

# deltameta_client becomes deltameta_client_store for bulk insertion and DeltaFS writes.
TOOLS = ["deltameta_server", "deltameta_client", "deltameta_client_store", "deltameta_compactor"]


def main(sm):
    p = sm.params
    with open(sm.log[0], "w") as log:
        if p.mode == "source":
            bin_dir = os.path.join(p.repo, "build", "core")
            res = subprocess.run(["bash", os.path.join(p.repo, "scripts", "build-core.sh")], stdout=log,
                                 stderr=subprocess.STDOUT, env=dict(os.environ, DELTAMETA_BUILD_DIR=bin_dir,
                                                                  DELTAMETA_BUILD_JOBS=str(sm.threads)))
            if res.returncode != 0:
                sys.exit(f"build_core: the core build failed (see {sm.log[0]})")
        else:
            bin_dir = os.path.abspath(p.bin_dir)
        missing = [t for t in TOOLS if not os.access(os.path.join(bin_dir, t), os.X_OK)]
        if missing:
            sys.exit(f"build_core: {', '.join(missing)} not found in {bin_dir}: set core.bin_dir to the directory "
                     "holding the installed tools, or use core.build: source")
        help_text = subprocess.run([os.path.join(bin_dir, "deltameta_client"), "--help"], capture_output=True,
                                   text=True, timeout=60)
        if help_text.returncode != 0:
            sys.exit(f"build_core: {bin_dir}/deltameta_client --help failed: {help_text.stderr.strip()}")
    with open(sm.output.tools, "w") as f:
        json.dump({"mode": p.mode, "bin_dir": bin_dir, "tools": TOOLS}, f, indent=1)


main(snakemake)  # noqa: F821 (provided by Snakemake)
