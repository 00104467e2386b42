"""One MPI job (mpijobs): mpiexec started in the background with its output in files or in a
log, waited for with a timeout and stopped, either SIGTERM then SIGKILL to mpiexec or SIGKILL
to its whole process tree. Also JobError, polling with a timeout, the JSON Lines a job
writes, and SIGTERM as an exception so that whoever started jobs stops them."""
import contextlib
import ctypes
import json
import os
import re
import signal
import subprocess
import time

from . import procs

PR_SET_PDEATHSIG = 1
ERROR_LINE = re.compile(r"^[\w.-]+: error: ")  # the core's tools' one-line errors


class JobError(RuntimeError):
    """A job failed: its message names the job and how."""


def die_with_parent():
    """A child's preexec_fn: it gets SIGTERM if the process that started it dies, even by SIGKILL."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _output(target):
    """Where a job writes: the file at path `target` (created), else `target` as it is (an open
    file, or subprocess.STDOUT)."""
    return open(target, "wb") if isinstance(target, str) else contextlib.nullcontext(target)


def _exit_code(proc, timeout):
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


class Job:
    """One mpiexec command line (a Launcher's) started in the background, stdin closed, stdout
    to `out` (a path, or an open log file) and stderr to `err` (a path, or the default
    subprocess.STDOUT: to `out`). own_session: in a process group of its own (else in the
    caller's, which a terminal's Ctrl-C reaches); mpiexec gets SIGTERM when the caller dies."""

    def __init__(self, name, argv, out, err=subprocess.STDOUT, env=None, cwd=None, own_session=True):
        self.name, self.argv = name, list(argv)
        self.out_path = out if isinstance(out, str) else out.name
        self.err_path = err if isinstance(err, str) else self.out_path
        # Where this job's output begins in a log that others append to as well.
        self.err_start = 0 if isinstance(err, str) or isinstance(out, str) else out.tell()
        with _output(out) as stdout, _output(err) as stderr:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, env=env,
                                         cwd=cwd, start_new_session=own_session, preexec_fn=die_with_parent)
        self.started = time.monotonic()

    def running(self):
        return self.proc.poll() is None

    def wait(self, timeout):
        """The exit code, or None if the job still runs after `timeout` seconds."""
        return _exit_code(self.proc, timeout)

    def signal(self, sig, group=False):
        """`sig` to mpiexec (it passes SIGINT and SIGTERM on to every rank), or with group=True
        to its process group (an own_session job's mpiexec and proxies)."""
        try:
            if group:
                os.killpg(self.proc.pid, sig)
            else:
                self.proc.send_signal(sig)
        except ProcessLookupError:
            pass

    def stop(self, grace=60, tree=False):
        """Stops the job if it still runs: SIGTERM to mpiexec, SIGKILL after `grace` seconds;
        tree=True: then also SIGKILL to every process that was below mpiexec and still runs."""
        if not self.running():
            return
        below = procs.started(procs.descendants(self.proc.pid)) if tree else {}
        self.signal(signal.SIGTERM)
        if _exit_code(self.proc, grace) is None:
            self.proc.kill()
            self.proc.wait()
        procs.kill(procs.same(below))

    def kill(self, also=()):
        """SIGKILL to mpiexec's process group, to every process below mpiexec (it starts ranks
        in sessions of their own) and to the pids `also`; then up to 10 s for mpiexec to exit."""
        pids = procs.descendants(self.proc.pid) + list(also)
        self.signal(signal.SIGKILL, group=True)
        procs.kill(pids)
        _exit_code(self.proc, 10)

    def stdout(self):
        with open(self.out_path, errors="replace") as f:
            return f.read()

    def stderr(self):
        with open(self.err_path, errors="replace") as f:
            return f.read()

    def error_said(self):
        """The first "TOOL: error: ..." line this job wrote (every rank prints the same cause),
        else its last line of output, else "no error output"."""
        with open(self.err_path, errors="replace") as f:
            f.seek(self.err_start)
            lines = [line.strip() for line in f.read().splitlines() if line.strip()]
        errors = [line for line in lines if ERROR_LINE.match(line)]
        return (errors or lines or ["no error output"])[0 if errors else -1]


def wait_until(predicate, timeout, interval=0.05):
    """predicate()'s first truthy value, asked every `interval` seconds; after `timeout`
    seconds its last, falsy one."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)


def read_json_lines(path):
    """The JSON documents of a JSON Lines file (a job's --json output)."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def stop_on_signals():
    """Turns SIGTERM into an exception so that `with ServerJob(...)` blocks and other cleanup
    code stop their jobs."""
    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, handler)
