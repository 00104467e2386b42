"""Shared fixtures of the Docker tests: the base image and the deltameta image, built once
per test session from this clone (docker/make-base-image.sh, docker/build-image.sh), and a
scratch output folder. Every test here is skipped, with the reason, where no Docker engine
answers."""
import os
import shutil
import subprocess
import tempfile

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOCKER = os.path.join(REPO, "docker")
BASE = "deltameta-base:bookworm"
IMAGE = "deltameta:test"


def docker_unavailable():
    """Why Docker cannot be used here, or None."""
    if not shutil.which("docker"):
        return "docker is not installed"
    res = subprocess.run(["docker", "info"], capture_output=True, text=True)
    return None if res.returncode == 0 else "no Docker engine answers (docker info failed)"


def run(*cmd, timeout=900, check=True, **kw):
    res = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout, **kw)
    if check:
        assert res.returncode == 0, f"{' '.join(cmd)} exited {res.returncode}:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res


@pytest.fixture(scope="session")
def image():
    why = docker_unavailable()
    if why:
        pytest.skip(why)
    have_base = run("docker", "image", "inspect", BASE, check=False).returncode == 0
    if not have_base and os.geteuid() != 0:
        pytest.skip(f"no {BASE}, and making it needs root: run sudo docker/make-base-image.sh once")
    run("bash", os.path.join(DOCKER, "make-base-image.sh"), BASE, timeout=900)
    run("bash", os.path.join(DOCKER, "build-image.sh"), "--base", BASE, "--tag", IMAGE, timeout=2400)
    return IMAGE


@pytest.fixture
def out_dir():
    """A scratch results folder owned by an ordinary user (uid 1000), as a user's would be."""
    d = tempfile.mkdtemp(prefix="deltameta-docker-", dir="/tmp")
    os.chown(d, 1000, 1000)
    yield d
    shutil.rmtree(d, ignore_errors=True)
