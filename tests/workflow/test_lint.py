"""The project's code passes its linters: `snakemake --lint` reports nothing but the lints
accepted below (each with its reason), `snakefmt --check` (settings in pyproject.toml)
would change nothing, ruff finds nothing in any Python file (pyproject.toml), clang-format
would change no C++ file of core/ (.clang-format), and the CI workflow file is valid for
GitHub Actions (check-jsonschema's built-in schema, which needs no network)."""
import os
import re
import shutil
import subprocess
import sys

from workflow_helpers import REPO

BIN = os.path.dirname(sys.executable)
# (file, lint title) -> why it stays
ACCEPTED = {
    ("*", "Specify a conda environment or container for each rule."):
        "the software is Debian's packages and .venv (scripts/install-deps.sh, setup-python.sh) or the "
        "deltameta image (docker/); conda cannot provide MPICH, RocksDB and Ceph as the runs need them",
}


def lints():
    """{(file, title)} of every lint `snakemake --lint` prints."""
    res = subprocess.run([os.path.join(BIN, "snakemake"), "--lint", "-s", os.path.join(REPO, "Snakefile"),
                          "--directory", REPO, "--dry-run"], capture_output=True, text=True, timeout=300)
    found, where = set(), None
    for line in (res.stdout + res.stderr).splitlines():
        m = re.match(r"Lints for (?:snakefile (\S+)|rule \S+ \(line \d+, (\S+)\)):", line)
        if m:
            where = os.path.relpath(m.group(1) or m.group(2), REPO)
            continue
        m = re.match(r"    \* (.+?)(?: in line \d+)?:?$", line)
        if m and where:
            found.add((where, m.group(1).rstrip(":")))
    return res, found


def test_snakemake_lint_reports_only_accepted_lints():
    res, found = lints()
    unexplained = {(f, t) for f, t in found if ("*", t) not in ACCEPTED and (f, t) not in ACCEPTED}
    assert not unexplained, (f"snakemake --lint: fix these in the workflow (or accept one in {__file__} with "
                             f"its reason): {sorted(unexplained)}")
    assert res.returncode in (0, 1), res.stderr[-2000:]


def test_snakefmt_would_change_nothing():
    files = [os.path.join(REPO, "Snakefile")] + sorted(
        os.path.join(REPO, "workflows", "rules", f) for f in os.listdir(os.path.join(REPO, "workflows", "rules")))
    res = subprocess.run([os.path.join(BIN, "snakefmt"), "--check", "--diff", *files], capture_output=True,
                         text=True, cwd=REPO, timeout=300)
    assert res.returncode == 0, ("snakefmt: run `.venv/bin/snakefmt Snakefile workflows/rules` to format these:\n"
                                 + res.stdout[-4000:] + res.stderr[-2000:])


def test_ci_workflow_is_valid_for_github_actions():
    res = subprocess.run([os.path.join(BIN, "check-jsonschema"), "--builtin-schema", "vendor.github-workflows",
                          os.path.join(REPO, ".github", "workflows", "ci.yml")], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr


def test_ruff_finds_nothing():
    res = subprocess.run([os.path.join(BIN, "ruff"), "check", "--no-cache", REPO], capture_output=True, text=True,
                         cwd=REPO, timeout=300)
    assert res.returncode == 0, "ruff (settings in pyproject.toml): fix these:\n" + res.stdout[-4000:] + res.stderr


def test_core_is_clang_formatted():
    assert shutil.which("clang-format"), "clang-format is not installed: run scripts/install-deps.sh"
    files = subprocess.run(["git", "-C", REPO, "ls-files", "-co", "--exclude-standard", "core/*.cc", "core/*.h"],
                           capture_output=True, text=True, check=True).stdout.split()
    assert len(files) > 50
    res = subprocess.run(["clang-format", "--dry-run", "--Werror", *files], capture_output=True, text=True, cwd=REPO,
                         timeout=300)
    assert res.returncode == 0, ("clang-format: run `clang-format -i $(git ls-files 'core/*.cc' 'core/*.h')`:\n"
                                 + res.stderr[-4000:])
