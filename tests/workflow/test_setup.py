"""`snakemake --cores all` works as the README says to type it: after the set-up, one line
(`source .venv/bin/activate`) puts the pinned Snakemake on PATH, and the README, the
configuration's README and the Snakefile's header all say so."""
import os
import subprocess

from workflow_helpers import REPO

ACTIVATE = "source .venv/bin/activate"


def test_docs_give_the_activation_line():
    for name in ("README.md", os.path.join("config", "README.md"), "Snakefile"):
        with open(os.path.join(REPO, name)) as f:
            assert ACTIVATE in f.read(), f"{name} does not say to `{ACTIVATE}` before typing snakemake"


def test_snakemake_as_typed_after_activation():
    # A login shell's PATH without .venv: the activation line alone must make `snakemake` the pinned one.
    script = (f"cd {REPO} && {ACTIVATE} && command -v snakemake && "
              "snakemake --cores all --configfile config/profiles/smoke.yaml --dry-run --quiet")
    res = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=300,
                         env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root")})
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert res.stdout.splitlines()[0] == os.path.join(REPO, ".venv", "bin", "snakemake")
