"""scripts/run-all.sh given a configuration file that does not exist: one line naming it and
where relative paths start, exit 2, before anything is installed or run."""
import subprocess

from workflow_helpers import REPO


def test_a_missing_configfile_is_one_line_and_exit_2():
    res = subprocess.run(["bash", f"{REPO}/scripts/run-all.sh", "--configfile", "config/profiles/smoke.yaml",
                          "no-such.yaml"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 2, res
    assert res.stderr == (f"run-all: --configfile no-such.yaml: no such file (relative paths start at the top "
                          f"of the clone, {REPO})\n")
    assert res.stdout == ""
