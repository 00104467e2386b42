"""scripts/setup-spack.sh's refusals (each one line naming the problem, exit 2), and what the
Spack tests do without Spack or without the prototype's archive: skip, naming the folder
where they looked and what it lacks; and that a failed Spack command shows the end of the
logs it names (they vanish with the test's scratch space).
(The set-up itself runs for real before the other Spack tests wherever no spack is on PATH.)"""
import os
import shutil
import subprocess
import sys

import pytest

from spack_helpers import UPSTREAM, run

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SETUP = os.path.join(REPO, "scripts", "setup-spack.sh")


def setup_spack(*args):
    return subprocess.run(["bash", SETUP, *args], capture_output=True, text=True, timeout=60)


def test_missing_archives_are_named(tmp_path):
    (tmp_path / "spack-1.0.2.tar.gz").write_bytes(b"")
    res = setup_spack("--from", str(tmp_path), str(tmp_path / "dest"))
    assert res.returncode == 2, res
    assert res.stderr == (f"setup-spack: {tmp_path}/spack-packages-2025.07.tar.gz is missing "
                          "(README.md, \"Spack\", names the archives)\n")


def test_a_folder_holding_something_else_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    res = setup_spack("--from", str(tmp_path), str(tmp_path))
    assert res.returncode == 2, res
    assert "is neither empty nor an earlier set-up of this script: choose another DEST" in res.stderr
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_bad_usage_is_one_line():
    res = setup_spack()
    assert res.returncode == 2 and res.stderr.startswith("setup-spack: usage:"), res


def test_spack_tests_skip_naming_where_they_looked(tmp_path):
    path = ":".join(d for d in os.environ["PATH"].split(":")
                    if not os.path.exists(os.path.join(d, "spack")))
    env = dict(os.environ, PATH=path, DELTAMETA_UPSTREAM=str(tmp_path / "nowhere"))
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                          os.path.join(REPO, "tests", "spack", "test_spack_env.py"), "-k", "default_env"],
                         capture_output=True, text=True, timeout=120, env=env, cwd=str(tmp_path))
    assert res.returncode == 0, res.stdout
    assert (f"spack is not on PATH and {tmp_path / 'nowhere'} lacks spack-1.0.2.tar.gz, "
            "spack-packages-2025.07.tar.gz") in res.stdout, res.stdout


def test_deltafs_proto_tests_skip_naming_what_is_missing(tmp_path):
    """Without its archive, test_deltafs_proto.py skips naming it; with the archive (and its
    README) but without Spack, the install skips naming Spack's archives."""
    path = ":".join(d for d in os.environ["PATH"].split(":")
                    if not os.path.exists(os.path.join(d, "spack")))
    test = os.path.join(REPO, "tests", "spack", "test_deltafs_proto.py")

    def pytest_with(upstream):
        env = dict(os.environ, PATH=path, DELTAMETA_UPSTREAM=str(upstream))
        res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", test],
                             capture_output=True, text=True, timeout=120, env=env, cwd=str(tmp_path))
        assert res.returncode == 0, res.stdout
        return res.stdout

    out = pytest_with(tmp_path / "nowhere")
    assert f"{tmp_path / 'nowhere'} lacks deltafs-proto-2021.5.tar.gz" in out and "4 skipped" in out, out
    if not os.path.isfile(os.path.join(UPSTREAM, "deltafs-proto-2021.5.tar.gz")):
        return
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    for name in ("deltafs-proto-2021.5.tar.gz", "README.md"):
        shutil.copyfile(os.path.join(UPSTREAM, name), upstream / name)
    out = pytest_with(upstream)
    assert (f"spack is not on PATH and {upstream} lacks spack-1.0.2.tar.gz, spack-packages-2025.07.tar.gz"
            in out and "1 passed, 3 skipped" in out), out


def test_a_failed_spack_command_shows_the_end_of_the_logs_it_names(tmp_path):
    log = tmp_path / "install-time-test-log.txt"
    log.write_text("start\nThe following tests FAILED:\n\t3 - integration.test_guide_commands (Failed)\n")
    with pytest.raises(pytest.fail.Exception) as failed:
        run(["sh", "-c", f"echo '==> Error: see below'; echo 'See test log for details:'; echo '  {log}'; exit 1"], 60)
    assert f"--- the end of {log} ---" in str(failed.value)
    assert "3 - integration.test_guide_commands (Failed)" in str(failed.value)


def test_a_failed_workflow_shows_the_end_of_its_failed_jobs_log(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "job.log").write_text("runs: deltameta_storage rm X failed (exit 1): why\n")
    with pytest.raises(pytest.fail.Exception) as failed:
        run(["sh", "-c", "echo '    log: results/job.log (check log file(s) for error details)'; exit 1"], 60,
            cwd=str(tmp_path))
    assert "deltameta_storage rm X failed (exit 1): why" in str(failed.value)
