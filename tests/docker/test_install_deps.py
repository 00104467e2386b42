"""scripts/install-deps.sh on a machine that lacks the packages: without root and without
sudo (a container of the base image, which has neither compilers nor sudo) it says in one
line to run it as root; while another process holds dpkg's lock (a container of the image,
no compilers there either) it says so and waits, up to DELTAMETA_APT_WAIT seconds, then
names the process it waited for."""
import os

from docker_helpers import BASE, REPO, run

HOLD = ("python3 -c 'import fcntl, sys, time; f = open(\"/var/lib/dpkg/lock-frontend\", \"w\"); "
        "fcntl.lockf(f, fcntl.LOCK_EX); time.sleep(float(sys.argv[1]))' {} & sleep 1; ")


def install_deps(image, script, *docker_args):
    return run("docker", "run", "--rm", "--network", "none", "-v", f"{os.path.join(REPO, 'scripts')}:/s:ro",
               *docker_args, "--entrypoint", "bash", image, "-c", script, check=False, timeout=300)


def test_without_root_or_sudo_it_says_to_run_it_as_root(image):
    res = install_deps(BASE, "bash /s/install-deps.sh", "--user", "1000")  # after the image fixture made it
    assert res.returncode == 2, res.stdout + res.stderr
    assert res.stderr.strip().splitlines() == [
        "install-deps: installing packages needs root, and there is no sudo: run it as root "
        "(su -c 'bash scripts/install-deps.sh'), or install sudo"]


def test_it_waits_for_the_dpkg_lock_within_its_bound(image):
    res = install_deps(image, HOLD.format(60) + "DELTAMETA_APT_WAIT=3 bash /s/install-deps.sh")
    assert res.returncode == 2, res.stdout + res.stderr
    assert "(python3) holds the package lock: waiting for it, up to 3 s" in res.stdout
    assert "(python3) still holds the package lock after 3 s: let it finish, then run this again" in res.stderr
    assert "installing" not in res.stdout


def test_it_goes_on_once_the_lock_is_free(image):
    res = install_deps(image, HOLD.format(3) + "DELTAMETA_APT_WAIT=60 bash /s/install-deps.sh")
    lines = res.stdout.splitlines()
    assert "waiting for it, up to 60 s" in lines[0], res.stdout + res.stderr
    assert lines[1].startswith("install-deps: the package lock is free after ")
    assert lines[2].startswith("install-deps: installing build-essential")  # then apt, with no network here
