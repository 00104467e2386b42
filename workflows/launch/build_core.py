"""Rule build_core: builds the core with CMake (or checks an installed
bin_dir: every tool the configured runs start must be there, registry.tools_needed) and
records where the tools are and which in results/core/tools.json; an installed version that
lacks what the configuration asks for (an MD-Workbench interface, the client's CephFS backend
for the cephfs system, RADOS for storage: rados; the tools' --help names what they were built
with) fails it in one line."""
import json
import os
import re
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


def installed(bin_dir):
    """What is installed in `bin_dir`, for a message: "deltameta VERSION" where known."""
    version = installed_version(bin_dir)
    return f"deltameta {version}" if version else "a deltameta of unknown version"


def built_with(help_text):
    """The optional parts (snappy, rados, cephfs) a tool's --help names in its last line,
    "Build: deltameta VERSION (REVISION), with: ..." (core/src/util/build_info.h), or None for
    a version from before that line (0.4.0 and older)."""
    m = re.search(r"^Build: deltameta \S+ \(.*\), with:(.*)$", help_text, re.M)
    return set(m[1].split()) - {"none"} if m else None


def missing_interfaces(bin_dir, interfaces, has_cephfs):
    """The configured MD-Workbench interfaces that the installed deltameta_mdworkbench does not
    name in its --help's --interface line (an older version than the one that added them),
    and cephfs where the build has no CephFS client."""
    if not interfaces:
        return []
    res = subprocess.run([os.path.join(bin_dir, "deltameta_mdworkbench"), "--help"], capture_output=True, text=True,
                         timeout=60)
    line = next((ln for ln in (res.stdout + res.stderr).splitlines() if ln.strip().startswith("--interface=")), "")
    return [i for i in interfaces
            if not re.search(rf"\b{re.escape(i)}\b", line) or (i == "cephfs" and not has_cephfs)]


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
            sys.exit(f"build_core: {missing[0]} not found in {bin_dir} ({installed(bin_dir)} is installed there), but "
                     f"{needed[missing[0]]} start it: install a newer deltameta (README.md, \"Spack\") or switch "
                     "those runs off")
        help_text = subprocess.run([os.path.join(bin_dir, "deltameta_client"), "--help"], capture_output=True,
                                   text=True, timeout=60)
        if help_text.returncode != 0:
            sys.exit(f"build_core: {bin_dir}/deltameta_client --help failed: {help_text.stderr.strip()}")
        parts = built_with(help_text.stdout)
        has_cephfs = "cephfs" in parts if parts is not None else "--cephfs=" in help_text.stdout
        if sm.config["storage"] == "rados" and parts is not None and "rados" not in parts:
            sys.exit(f"build_core: the tools in {bin_dir} ({installed(bin_dir)} is installed there) were built "
                     "without RADOS, but storage is rados: install deltameta +rados (README.md, \"Spack\") or use "
                     "core.build: source, which builds it")
        if "cephfs" in sm.config["systems"] and not has_cephfs:
            sys.exit(f"build_core: deltameta_client in {bin_dir} ({installed(bin_dir)} is installed there) has no "
                     "CephFS client (--cephfs), but systems lists cephfs: use core.build: source, which builds it, or "
                     "leave cephfs out of systems")
        lacking = missing_interfaces(bin_dir, sm.config["mdworkbench"]["interfaces"], has_cephfs)
        if lacking:
            sys.exit(f"build_core: deltameta_mdworkbench in {bin_dir} ({installed(bin_dir)} is installed there) has no "
                     f"{' or '.join(lacking)} interface, but mdworkbench.interfaces lists it: use core.build: source, "
                     f"which builds every interface, or leave {', '.join(lacking)} out of mdworkbench.interfaces")
    with open(sm.output.tools, "w") as f:
        json.dump({"mode": p.mode, "bin_dir": bin_dir, "tools": sorted(tools_needed(sm.config))}, f, indent=1)
