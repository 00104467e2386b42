"""The fence between two attempts of a run under Slurm (workflows/launch/slurm_attempt.py),
with real processes standing in for a stopped job's step: a new attempt waits while the last
attempt's recorded processes, or any process with an argument in the run folder, still run
on this host, and not for a recycled pid, a neighbouring folder or its own job; it gives up
after its time limit naming the processes and how to end them (no Slurm cluster needed for
these); and it ends, itself, a recorded process that outlives its job once the one-host
Slurm cluster (conftest.py) says that job has ended."""
import json
import os
import socket
import subprocess
import sys
import threading
import time

from slurm_helpers import wait_for

from workflows.launch.slurm_attempt import ATTEMPT_FILE, LEFTOVER_GRACE_S, job_state, start_time, wait_for_previous


def sleeper(*args, cwd=None):
    """A process sleeping 60 s with `args` on its command line, once the kernel shows them (a
    fence looking earlier saw the forked test process's command line instead, on a busy run)."""
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", *args], cwd=cwd)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with open(f"/proc/{p.pid}/cmdline", "rb") as f:
            if b"time.sleep(60)" in f.read():
                return p
        time.sleep(0.01)
    p.kill()
    raise AssertionError(f"the sleeper {p.pid} did not show its command line within 30 s")


def record(folder, job_id, processes):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, ATTEMPT_FILE), "w") as f:
        json.dump({"job_id": job_id, "host": socket.gethostname(), "processes": processes}, f)


def ended_after(proc, seconds):
    threading.Timer(seconds, proc.kill).start()


def test_waits_for_the_last_attempts_processes_then_records_its_own(tmp_path):
    folder = str(tmp_path / "rep1")
    step = sleeper()
    try:
        record(folder, "7", [[step.pid, start_time(step.pid)]])
        ended_after(step, 1.0)
        t0 = time.monotonic()
        assert wait_for_previous(folder, "8", timeout_s=30, poll_s=0.1) is None
        assert time.monotonic() - t0 >= 0.9
    finally:
        step.kill()
        step.wait()
    with open(os.path.join(folder, ATTEMPT_FILE)) as f:
        mine = json.load(f)
    assert mine["job_id"] == "8" and [os.getpid(), start_time(os.getpid())] in mine["processes"]


def test_waits_for_a_process_naming_the_run_folder_but_not_a_neighbour(tmp_path):
    folder = tmp_path / "runs" / "rep1"
    record(str(folder), "7", [])
    neighbour = sleeper("runs/rep10/phases.jsonl", cwd=tmp_path)
    server = sleeper("--db", "runs/rep1/svr", cwd=tmp_path)
    try:
        ended_after(server, 1.0)
        t0 = time.monotonic()
        assert wait_for_previous(str(folder), "8", timeout_s=30, poll_s=0.1) is None
        assert 0.9 <= time.monotonic() - t0 < 20  # the neighbour, still running, was not waited for
    finally:
        for p in (neighbour, server):
            p.kill()
            p.wait()


def test_a_recycled_pid_or_the_same_job_is_not_waited_for(tmp_path):
    folder = str(tmp_path / "rep1")
    other = sleeper()
    try:
        record(folder, "7", [[other.pid, start_time(other.pid) + 1]])  # another process under that pid
        assert wait_for_previous(folder, "8", timeout_s=0, poll_s=0.1) is None
        record(folder, "8", [[other.pid, start_time(other.pid)]])  # this job's own earlier record
        assert wait_for_previous(folder, "8", timeout_s=0, poll_s=0.1) is None
    finally:
        other.kill()
        other.wait()


def test_gives_up_naming_what_still_runs(tmp_path):
    folder = str(tmp_path / "rep1")
    step = sleeper()
    try:
        record(folder, "7", [[step.pid, start_time(step.pid)]])
        reason = wait_for_previous(folder, "8", timeout_s=0.5, poll_s=0.1)
    finally:
        step.kill()
        step.wait()
    assert reason.startswith("processes of this run's last attempt (Slurm job 7) still run on this host after 0.5 s: "
                             f"{step.pid} ")
    assert reason.endswith("end them (kill PID) and rerun")
    with open(os.path.join(folder, ATTEMPT_FILE)) as f:
        assert json.load(f)["job_id"] == "7"  # not taken over


def test_ends_what_an_ended_job_left_behind(slurm_cluster, tmp_path, capsys):
    submitted = subprocess.run(["sbatch", "--parsable", "--output", os.devnull, "--wrap", "true"], capture_output=True,
                               text=True, timeout=60)
    assert submitted.returncode == 0, submitted.stderr
    job = submitted.stdout.strip().split(";")[0]
    wait_for(lambda: job_state(job) == "ended", 120, f"Slurm job {job} ended")
    folder = str(tmp_path / "rep1")
    leftover = sleeper()
    try:
        record(folder, job, [[leftover.pid, start_time(leftover.pid)]])
        t0 = time.monotonic()
        assert wait_for_previous(folder, "other", timeout_s=60, poll_s=0.2) is None
        assert time.monotonic() - t0 >= LEFTOVER_GRACE_S
        assert leftover.wait(timeout=5) is not None  # ended by the fence, not by this test
        assert f"left processes behind: ended {leftover.pid}\n" in capsys.readouterr().err
    finally:
        leftover.kill()
        leftover.wait()
