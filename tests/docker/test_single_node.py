"""The image on one node, started wrongly: without a results folder mounted, or with a
configuration file it cannot find, it says so in one line and exits 2; its build shows each
step as it reaches it, and which were cached; a base image that cannot be pulled is one line
naming docker/make-base-image.sh. (A plain `docker run` reproducing the smoke figures is
test_release.py's, from the released image with no network.)"""
import os

import pytest

from docker_helpers import DOCKER, build_image, docker_unavailable, run


def test_a_missing_output_folder_is_one_line_and_exit_2(image):
    res = run("docker", "run", "--rm", image, "run", check=False, timeout=120)
    assert res.returncode == 2
    assert "/out is not a writable folder mounted from the host: mount one" in res.stderr


def test_a_missing_configfile_is_one_line_and_exit_2(image, tmp_path):
    res = run("docker", "run", "--rm", "-v", f"{tmp_path}:/out", image, "run", "--configfile", "mine.yaml",
              check=False, timeout=120)
    assert res.returncode == 2, res
    assert res.stderr.splitlines()[-1] == (
        "deltameta: --configfile mine.yaml: no such file in the container (looked in /out and "
        "/opt/deltameta/workflow; a file of the host must be in the folder mounted at /out: "
        "--configfile /out/NAME.yaml)"), res.stderr


def test_the_image_build_shows_each_step(image):
    res = build_image()
    steps = [line for line in res.stdout.splitlines() if line.startswith("build-image: Step ")]
    assert steps, res.stdout
    total = steps[0].split("/")[1].split()[0]
    assert steps[0].startswith("build-image: Step 1/"), steps
    assert steps[-1].startswith(f"build-image: Step {total}/{total} "), steps
    assert res.stdout.splitlines()[-1].startswith(f"build-image: {image} ("), res.stdout
    assert "build-image:   cached" in res.stdout.splitlines(), res.stdout  # built just before


def test_a_base_that_cannot_be_pulled_names_make_base_image():
    why = docker_unavailable()
    if why:
        pytest.skip(why)
    res = run("bash", os.path.join(DOCKER, "build-image.sh"), "--base", "deltameta-no-such-base:none", "--tag",
              "deltameta-never-built:test", check=False, timeout=300)
    assert res.returncode == 2, res.stdout + res.stderr
    [line] = res.stderr.splitlines()
    assert line.startswith("build-image: cannot pull deltameta-no-such-base:none ("), line
    assert line.endswith("where no registry answers, make a base once with sudo docker/make-base-image.sh and "
                         "build on it: docker/build-image.sh --base deltameta-base:bookworm"), line
