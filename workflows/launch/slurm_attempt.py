"""The fence between two attempts of one run under Slurm (used by slurm_run.py). A stopped
job (time limit, scancel, lost node) can leave its step's processes behind for a while
after Slurm has let the job go, and the step's snakemake, as it ends, removes the rule's
outputs: a rerun that wrote them in the meantime would lose them. So each attempt records
itself in its run folder (ATTEMPT_FILE: Slurm job id, host, and the pid and start time of
this process and its ancestors up to Slurm's step daemon, i.e. the step's snakemake and
shell), and the next attempt of the run, before it touches anything, waits until what the
last one recorded has ended and no process names the run folder, on its own host; for an
attempt on another host it waits until Slurm no longer runs that job. Recorded processes
that outlive their job by LEFTOVER_GRACE_S (Slurm's proctrack/linuxproc loses a process
whose parent died first, so its SIGKILL misses it) are ended here: SIGTERM, then SIGKILL;
they are recognised by pid and start time, and only once Slurm says the job has ended.
After `timeout_s` it gives up with one line naming the processes and how to end them."""
import json
import os
import signal
import socket
import subprocess
import sys
import time

ATTEMPT_FILE = "slurm-attempt.json"
LEFTOVER_GRACE_S = 10  # how long a recorded process may outlive its ended job before it is ended here


def start_time(pid):
    """The start time of process `pid` in clock ticks since boot, or None if it has ended
    (gone, or a zombie: it runs no more code)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        return None if fields[0] in ("Z", "X") else int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def parent(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rpartition(")")[2].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def arguments(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().decode(errors="replace").split("\0")
    except OSError:
        return []


def command(pid):
    return " ".join(arguments(pid)).strip()


def lineage(pid):
    """[(pid, start time)] of `pid` and its ancestors below Slurm's step daemon (or init)."""
    chain = []
    while pid > 1 and not command(pid).startswith("slurmstepd"):
        chain.append((pid, start_time(pid)))
        pid = parent(pid)
    return chain


def names(pid, folder):
    """Whether an argument of process `pid` is `folder` (as this process names it, relative to
    its working directory) or a path in it, seen from that process's working directory."""
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return False
    target = os.path.abspath(folder)
    for arg in arguments(pid):
        if arg and not arg.startswith("-"):
            path = os.path.normpath(os.path.join(cwd, arg))
            if path == target or path.startswith(target + os.sep):
                return True
    return False


def naming(folder, exclude):
    """Processes other than `exclude` with an argument in `folder`."""
    return [int(e) for e in os.listdir("/proc") if e.isdigit() and int(e) not in exclude and names(int(e), folder)]


def left_behind(record, folder, own):
    """What of the attempt `record` still runs here: its recorded processes still alive (same
    pid, same start time) and any process naming `folder`, other than `own`."""
    alive = [pid for pid, started in record.get("processes", []) if started and start_time(pid) == started]
    return sorted(set(alive + naming(folder, own)) - own)


# Job states in which a job's processes can still run (squeue also lists ended jobs for a while).
ACTIVE = {"RUNNING", "COMPLETING", "SUSPENDED", "CONFIGURING", "STOPPED", "SIGNALING", "STAGE_OUT", "RESIZING"}


def job_state(job_id):
    """'running' while Slurm lists job `job_id` in a state in which its processes can still
    run, 'ended' once it lists it in another or no longer knows it, None when Slurm cannot be
    asked (no squeue, no controller answering)."""
    try:
        res = subprocess.run(["squeue", "--noheader", "--jobs", str(job_id), "--format", "%T"], capture_output=True,
                             text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if res.returncode == 0:
        return "running" if ACTIVE & set(res.stdout.split()) else "ended"
    return "ended" if "Invalid job id" in res.stderr else None


def slurm_runs(job_id):
    """Whether Slurm lists job `job_id` in a state in which its processes can still run."""
    return job_state(job_id) == "running"


def recorded_alive(record):
    """The recorded processes of `record` that still run (same pid, same start time)."""
    return [pid for pid, started in record.get("processes", []) if started and start_time(pid) == started]


def end_leftovers(record):
    """Ends the recorded processes of `record` that still run: SIGTERM, and SIGKILL to those
    still there 5 s later. Returns the pids it signalled."""
    signalled = recorded_alive(record)
    for sig, wait_s in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        for pid in recorded_alive(record):
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + wait_s
        while recorded_alive(record) and time.monotonic() < deadline:
            time.sleep(0.1)
    return signalled


def wait_until_ended(record, folder, own, timeout_s, poll_s):
    """None once the attempt `record` has ended (see above), or after `timeout_s` the reason to give up."""
    deadline = time.monotonic() + timeout_s
    here, waited, ended_at = record.get("host") == socket.gethostname(), False, None
    while True:
        if here:
            pending = left_behind(record, folder, own)
            if pending and ended_at is None and job_state(record["job_id"]) == "ended":
                ended_at = time.monotonic()
            if pending and ended_at is not None and time.monotonic() - ended_at >= LEFTOVER_GRACE_S:
                ended = end_leftovers(record)
                if ended:
                    print(f"slurm_run: Slurm job {record['job_id']} has ended but left processes behind: ended "
                          f"{', '.join(map(str, ended))}", file=sys.stderr, flush=True)
                pending = left_behind(record, folder, own)
        else:
            pending = [record["job_id"]] if slurm_runs(record["job_id"]) else []
        if not pending:
            return None
        if time.monotonic() > deadline:
            break
        if not waited:
            print(f"slurm_run: waiting for this run's last attempt (Slurm job {record['job_id']}) to end: "
                  f"{', '.join(map(str, pending))}", file=sys.stderr, flush=True)
            waited = True
        time.sleep(poll_s)
    if not here:
        return (f"Slurm still runs job {record['job_id']}, this run's last attempt on {record.get('host')}, "
                f"after {timeout_s} s: wait for it to end (squeue -j {record['job_id']}) and rerun")
    listed = "; ".join(f"{pid} {command(pid)[:80]}" for pid in pending)
    return (f"processes of this run's last attempt (Slurm job {record['job_id']}) still run on this host after "
            f"{timeout_s} s: {listed}; end them (kill PID) and rerun")


def wait_for_previous(folder, job_id, timeout_s=120, poll_s=0.5):
    """Waits until the run folder's last attempt, if another job's, has ended (see above), then
    records this one. Returns None, or a one-line reason to give up."""
    path = os.path.join(folder, ATTEMPT_FILE)
    own = {pid for pid, _ in lineage(os.getpid())}
    try:
        with open(path) as f:
            record = json.load(f)
    except (OSError, ValueError):
        record = None
    if record and str(record.get("job_id")) != str(job_id):
        reason = wait_until_ended(record, folder, own, timeout_s, poll_s)
        if reason:
            return reason
    os.makedirs(folder, exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump({"job_id": str(job_id), "host": socket.gethostname(),
                   "processes": [list(p) for p in lineage(os.getpid())]}, f)
    os.replace(path + ".tmp", path)
    return None
