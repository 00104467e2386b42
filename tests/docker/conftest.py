"""Shared fixtures of the Docker tests (their helpers: docker_helpers.py): the base image and
the deltameta image, built once per test session from this clone
(docker/make-base-image.sh, docker/build-image.sh), and a scratch output folder. Every test
here is skipped, with the reason, where no Docker engine answers."""
import os
import shutil
import tempfile

import pytest
from docker_helpers import BASE, DOCKER, IMAGE, build_image, docker_unavailable, run


@pytest.fixture(scope="session")
def image():
    why = docker_unavailable()
    if why:
        pytest.skip(why)
    have_base = run("docker", "image", "inspect", BASE, check=False).returncode == 0
    if not have_base and os.geteuid() != 0:
        pytest.skip(f"no {BASE}, and making it needs root: run sudo docker/make-base-image.sh once")
    made = run("bash", os.path.join(DOCKER, "make-base-image.sh"), BASE, timeout=900)
    # apt's "E: Can not write log" (no terminal in the chroot) and "W: Download is performed
    # unsandboxed" (its own user could not reach the chroot) looked like errors and were noise.
    noise = [line for line in (made.stdout + made.stderr).splitlines()
             if "Can not write log" in line or "unsandboxed" in line]
    assert not noise, "make-base-image.sh printed apt's noise again:\n" + "\n".join(noise[:20])
    build_image()
    return IMAGE


@pytest.fixture
def out_dir():
    """A scratch results folder owned by an ordinary user (uid 1000), as a user's would be."""
    d = tempfile.mkdtemp(prefix="deltameta-docker-", dir="/tmp")
    os.chown(d, 1000, 1000)
    yield d
    shutil.rmtree(d, ignore_errors=True)
