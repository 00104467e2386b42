"""Every configuration writes its conclusions to its own results/<name>/: a run leaves the
project's tracked files alone (git status stays clean), never touches another profile's
outputs, and a run of one profile does not make another's outdated."""
import os

from workflow_helpers import BUILT, NO_MDWB, digests, git

SMALL = {**NO_MDWB, "systems": ["indexfs-bulk"], "client_ranks": [1], "repetitions": 1, **BUILT}


def test_smoke_run_leaves_the_tree_clean(smoke):
    assert git(smoke.workdir, "status", "--porcelain", "--untracked-files=all") == ""


def test_smoke_run_leaves_tracked_outputs_and_the_default_profile_alone(smoke):
    for root, before in smoke.untouched.items():
        assert digests(smoke.path(root)) == before, f"the smoke run changed {root}"
    assert os.path.isfile(smoke.path("results", "smoke", "summary.csv"))


def test_another_profile_keeps_the_first_up_to_date(workflow_in):
    first = workflow_in.run(overrides=dict(SMALL, name="first"))
    assert first.returncode == 0, first.stderr[-3000:]
    before = digests(workflow_in.path("results", "first"))
    second = workflow_in.run(overrides=dict(SMALL, name="second", client_ranks=[2]))
    assert second.returncode == 0, second.stderr[-3000:]
    assert os.path.isfile(workflow_in.path("results", "second", "summary.csv"))
    assert digests(workflow_in.path("results", "first")) == before
    again = workflow_in.run("--dry-run", overrides=dict(SMALL, name="first"))
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr, again.stdout[-2000:]


def test_names_that_are_shared_folders_are_refused(workflow_in):
    for name in ("reference", "runs", "logs", "../paper"):
        res = workflow_in.run("--dry-run", overrides={"name": name})
        assert res.returncode != 0, name
        assert name in res.stdout + res.stderr, name
