"""docker/build-image.sh compiles the core only when its sources change: built again after a
commit that changes a script, the image reuses the compiled layer (build-image.sh prints
"cached" under that step) and only stamps the new revision into the tools, so that the
labels, image.json and the tools themselves name the new commit. An image builds from a git
worktree too (its .git is a file), with the worktree's revision."""
import json

import pytest

from docker_helpers import BASE, IMAGE, git, run, scratch_repo

TAG = IMAGE.rsplit(":", 1)[0] + ":cache-test"  # this module's own image, removed at the end


@pytest.fixture(scope="module")
def repo(image, tmp_path_factory):
    yield scratch_repo(tmp_path_factory.mktemp("cache") / "repo")
    run("docker", "rmi", TAG, check=False)


def build(work):
    """{step: whether its layer was reused} of a build-image.sh run from `work`."""
    res = run("bash", str(work / "docker" / "build-image.sh"), "--base", BASE, "--tag", TAG, timeout=2400)
    steps, step = {}, None
    for line in res.stdout.splitlines():
        if line.startswith("build-image: Step "):
            step = line.split(" : ", 1)[1]
            steps[step] = False
        elif line == "build-image:   cached" and step:
            steps[step] = True
    return steps


def step(steps, part):
    """Whether the one step whose text holds `part` was cached."""
    found = [cached for text, cached in steps.items() if part in text]
    assert len(found) == 1, (part, steps)
    return found[0]


def assert_names(work):
    """The image's labels, image.json and its tools name HEAD of `work`."""
    head = git(work, "rev-parse", "HEAD").strip()
    labels = json.loads(run("docker", "image", "inspect", "-f", "{{json .Config.Labels}}", TAG).stdout)
    assert labels["org.opencontainers.image.revision"] == head
    info = json.loads(run("docker", "run", "--rm", "--entrypoint", "cat", TAG, "/opt/deltameta/image.json").stdout)
    assert info["core_revision"] == head[:12] and info["core_commit"] == head
    # A DeltaFS write of 10 files: its phase document names the revision the tool was built with.
    res = run("docker", "run", "--rm", "--entrypoint", "sh", TAG, "-c",
              "mpiexec -n 1 deltameta_client_store --n=10 --fs_use_local=1 --db=/tmp/s --json=/tmp/o.jsonl "
              ">/dev/null && head -n 1 /tmp/o.jsonl")
    assert json.loads(res.stdout)["build"]["git_revision"] == head[:12], res.stdout


def test_a_commit_outside_the_core_reuses_the_compiled_core(repo):
    build(repo)
    script = repo / "scripts" / "run-all.sh"
    script.write_text(script.read_text() + "# a change outside the core\n")
    git(repo, "commit", "-qam", "a script changed")
    steps = build(repo)
    assert step(steps, "build-core.sh compile") is True
    assert step(steps, "build-core.sh stamp") is False
    assert_names(repo)


def test_an_image_builds_from_a_git_worktree(repo, tmp_path):
    work = tmp_path / "worktree"
    git(repo, "worktree", "add", "-q", str(work))
    git(work, "commit", "-q", "--allow-empty", "-m", "a commit of the worktree")
    assert (work / ".git").is_file()
    steps = build(work)
    assert step(steps, "build-core.sh compile") is True
    assert_names(work)
