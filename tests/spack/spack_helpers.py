"""Helpers of the Spack tests (a module of its own name: test directories share the name
`conftest`): the `spack` on PATH or one set up offline from the release archives in
$DELTAMETA_UPSTREAM (default: ../shared/upstream beside the clone), skipping with the reason
where there is neither (set up in the folder $DELTAMETA_SPACK_SETUP names, where
scripts/test.sh sets it up once for the Spack tests it runs side by side, else in the test's
scratch space); `Spack`, which runs it with a configuration scope of the test's own
(install tree, stages, caches under a scratch folder; its index of the package repositories
starts as a copy of $DELTAMETA_SPACK_INDEX_SEED where that is set: tests/spack/index_seed.py,
which scripts/test.sh runs once for its Spack test processes); `run`, a command with a time
limit whose whole process group is ended on expiry."""
import os
import re
import shutil
import signal
import subprocess

import pytest
import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
UPSTREAM = os.environ.get("DELTAMETA_UPSTREAM") or os.path.join(REPO, "..", "shared", "upstream")
ARCHIVES = ("spack-1.0.2.tar.gz", "spack-packages-2025.07.tar.gz")


def stop(p):
    """Ends the process group of `p` (SIGTERM, SIGKILL 30 s later) and returns its output."""
    os.killpg(p.pid, signal.SIGTERM)
    try:
        return p.communicate(timeout=30)[0]
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        return p.communicate()[0]


def run(cmd, timeout, cwd=None, env=None):
    """Runs `cmd` in its own process group; fails the test on a non-zero exit or when it
    outlives `timeout` seconds. On expiry, or when the test run is interrupted (Ctrl-C), the
    group is ended, so no build is left running."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        out = stop(p)
        pytest.fail(f"timed out after {timeout} s: {' '.join(cmd)}\n{out[-4000:]}")
    except BaseException:
        stop(p)
        raise
    if p.returncode != 0:
        pytest.fail(f"exit {p.returncode}: {' '.join(cmd)}\n{out[-4000:]}{logs_named(out, cwd)}")
    return out


def logs_named(out, cwd=None):
    """The end of every log the output points to (Spack's "See test log for details: PATH", the
    build log likewise; a failed Snakemake job's "log: PATH (check log file(s) ...)", relative
    to `cwd`): they live in the test's scratch space, which pytest later removes."""
    shown = ""
    named = re.findall(r"See (?:test|build) log for details:\s+(\S+)", out)
    named += [os.path.join(cwd or "", p) for p in re.findall(r"log: (\S+) \(check log file\(s\) for error", out)]
    for path in dict.fromkeys(named):
        try:
            with open(path, errors="replace") as f:
                shown += f"\n--- the end of {path} ---\n{f.read()[-4000:]}"
        except OSError as e:
            shown += f"\n--- {path}: {e.strerror} ---"
    return shown


def find_or_set_up_spack(root):
    """(spack command, environment for it): the one on PATH, else one set up from the release
    archives (in $DELTAMETA_SPACK_SETUP, else in `root`; the set-up is kept where it is
    already there), with user settings and caches of `root`'s own; skips the test when there
    is neither."""
    on_path = shutil.which("spack")
    if on_path:
        return on_path, dict(os.environ)
    missing = [a for a in ARCHIVES if not os.path.isfile(os.path.join(UPSTREAM, a))]
    if missing:
        pytest.skip(f"spack is not on PATH and {UPSTREAM} lacks {', '.join(missing)} "
                    "(README.md, 'Spack'; DELTAMETA_UPSTREAM names another folder)")
    dest = os.environ.get("DELTAMETA_SPACK_SETUP") or os.path.join(root, "spack-setup")
    run(["bash", os.path.join(REPO, "scripts", "setup-spack.sh"), "--from", UPSTREAM, dest], 600)
    env = dict(os.environ, SPACK_PYTHON=os.path.join(dest, "python", "bin", "python"),
               SPACK_USER_CONFIG_PATH=os.path.join(root, "user"),
               SPACK_USER_CACHE_PATH=os.path.join(root, "user-cache"))
    return os.path.join(dest, "spack", "bin", "spack"), env


class Spack:
    """`spack` with the test's configuration scope: install tree, stages and caches under `root`."""

    def __init__(self, root):
        self.root = str(root)
        self.exe, self.environ = find_or_set_up_spack(self.root)
        self.scope = os.path.join(self.root, "scope")
        os.makedirs(self.scope)
        # Spack's index of each package repository (about 50 CPU-s to build for its builtin
        # one): copied, timestamps kept, from a seed where there is one, so that Spack finds
        # it up to date. A copy each, never one shared: Spack's processes race as they update it.
        self.misc_cache = os.path.join(self.root, "cache", "misc")
        seed = os.environ.get("DELTAMETA_SPACK_INDEX_SEED")
        self.seeded = bool(seed and os.path.isdir(seed))
        if self.seeded:
            shutil.copytree(seed, self.misc_cache)
        config = {"config": {
            "install_tree": {"root": os.path.join(self.root, "opt")},
            "build_stage": [os.path.join(self.root, "stage")],
            "source_cache": os.path.join(self.root, "cache", "source"),
            "misc_cache": self.misc_cache,
            # spack develop links its build directory here, not into the working tree.
            "develop_stage_link": os.path.join(self.root, "develop-build-{hash:7}"),
        }}
        with open(os.path.join(self.scope, "config.yaml"), "w") as f:
            yaml.safe_dump(config, f)

    def __call__(self, *args, timeout=900):
        return run([self.exe, "-C", self.scope, *args], timeout, env=self.environ)

    def env(self, name, manifest):
        """An environment created from `manifest` (relative paths in it become absolute), within
        300 s where the index was seeded (it takes about 1 s), else 1800: Spack builds the index
        first, which took 65 s on a quiet machine and more than 300 on CI's busy one (load 10,
        2026-11-28)."""
        path = os.path.join(self.root, name)
        self("env", "create", "-d", path, manifest, timeout=300 if self.seeded else 1800)
        return path


def installed_prefix(spack, env, package="deltameta"):
    """The install prefix of `package` in the environment `env`."""
    out = spack("-e", env, "find", "--format", "{prefix}", package, timeout=300)
    prefixes = [line for line in out.split() if line.startswith("/")]
    assert len(prefixes) == 1, out
    return prefixes[0]
