"""Rule build_core: builds the core with CMake (or checks an installed
bin_dir: every tool the configured runs start must be there, registry.tools_needed) and
records where the tools are and which in results/core/tools.json."""
import json
import os
import subprocess
import sys

from workflows.registry import tools_needed


def installed_version(bin_dir):
    """The deltameta version installed in `bin_dir` where its installer recorded it (Spack's
    .spack/spec.json in the prefix, the image's image.json), else None; the prefix is
    bin_dir's parent or, for a Spack view's links, that of the tools they point to."""
    tool = os.path.join(bin_dir, "deltameta_client")
    for prefix in (os.path.dirname(os.path.abspath(bin_dir)), os.path.dirname(os.path.dirname(os.path.realpath(tool)))):
        try:
            with open(os.path.join(prefix, ".spack", "spec.json")) as f:
                return next(n["version"] for n in json.load(f)["spec"]["nodes"] if n["name"] == "deltameta")
        except (OSError, ValueError, KeyError, StopIteration):
            pass
        try:
            with open(os.path.join(prefix, "image.json")) as f:
                return json.load(f)["core_version"]
        except (OSError, ValueError, KeyError):
            pass
    return None


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
        needed = tools_needed(sm.config)
        missing = [t for t in needed if not os.access(os.path.join(bin_dir, t), os.X_OK)]
        if missing and not os.access(os.path.join(bin_dir, "deltameta_client"), os.X_OK):
            sys.exit(f"build_core: {', '.join(missing)} not found in {bin_dir}: set core.bin_dir to the directory "
                     "holding the installed tools, or use core.build: source")
        if missing:
            version = installed_version(bin_dir)
            installed = f"deltameta {version}" if version else "a deltameta of unknown version"
            sys.exit(f"build_core: {missing[0]} not found in {bin_dir} ({installed} is installed there), but "
                     f"{needed[missing[0]]} start it: install a newer deltameta (README.md, \"Spack\") or switch "
                     "those runs off")
        help_text = subprocess.run([os.path.join(bin_dir, "deltameta_client"), "--help"], capture_output=True,
                                   text=True, timeout=60)
        if help_text.returncode != 0:
            sys.exit(f"build_core: {bin_dir}/deltameta_client --help failed: {help_text.stderr.strip()}")
    with open(sm.output.tools, "w") as f:
        json.dump({"mode": p.mode, "bin_dir": bin_dir, "tools": sorted(tools_needed(sm.config))}, f, indent=1)
