"""scripts/build-core.sh builds one directory once at a time: while another process holds
the directory's lock it says so and configures nothing; once the lock is released it
goes on (CMake's configure, stopped here before the compile); a lock whose holder has
died holds nothing back."""
import fcntl
import os
import signal
import subprocess
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO, "scripts", "build-core.sh")


def start(build):
    return subprocess.Popen(["bash", SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, DELTAMETA_BUILD_DIR=str(build)), start_new_session=True)


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"{what}: not within {timeout} s"
        time.sleep(0.1)


def stop(proc):
    """Ends the build and everything it started (cmake, make)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    return proc.communicate(timeout=60)[0]


def test_a_second_build_of_one_directory_waits_for_the_first(tmp_path):
    build = tmp_path / "core"
    build.mkdir()
    with open(build / ".build-core.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = start(build)
        try:
            first = proc.stdout.readline()
            assert first == f"build-core: another build of {build} is running; waiting for it to end\n", first
            time.sleep(1)
            assert proc.poll() is None and not (build / "CMakeCache.txt").exists()
        except BaseException:
            stop(proc)
            raise
    try:  # the lock released: the build goes on
        wait_for(lambda: (build / "CMakeCache.txt").exists() or proc.poll() is not None, 120, "CMake's configure")
        assert (build / "CMakeCache.txt").exists()
    finally:
        stop(proc)


def test_the_lock_of_a_killed_build_holds_nothing_back(tmp_path):
    build = tmp_path / "core"
    build.mkdir()
    holder = subprocess.Popen(["flock", str(build / ".build-core.lock"), "sleep", "600"], start_new_session=True)
    wait_for(lambda: (build / ".build-core.lock").exists(), 30, "the holder's lock")
    os.killpg(holder.pid, signal.SIGKILL)
    holder.wait(timeout=30)
    proc = start(build)
    try:
        wait_for(lambda: (build / "CMakeCache.txt").exists() or proc.poll() is not None, 120, "CMake's configure")
        assert (build / "CMakeCache.txt").exists()
    finally:
        output = stop(proc)
    assert "another build" not in output, output
