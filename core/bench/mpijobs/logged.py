"""The seed runs' and the workflow's jobs (mpijobs), each appended with its command line to
one log, in the caller's process group: one-shot jobs (client, compactor) run to completion,
and server jobs that publish their info URI in a --ready_file and are always stopped, also
when the caller fails. A failure raises JobError naming the job, a lost host, the job's
own error line and the log."""
import os
import signal

from .job import Job, JobError, read_json_lines, wait_until
from .launcher import failure_cause, flags, remember_host_names


def published_uri(path):
    """The URI a server job wrote to its --ready_file, once written whole (a line), else None."""
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return None
    return text.strip() if text.endswith("\n") else None


def _start(name, cmd, log):
    log.write("$ " + " ".join(cmd) + "\n")
    log.flush()
    return Job(name, cmd, log, own_session=False)


def run_job(launcher, label, ranks, env, tool, tool_flags, json_path, log, timeout, hosts=None):
    """Runs one job to completion, its output appended to `log`; returns its JSON documents."""
    job = _start(label, launcher.command(ranks, tool, flags(**dict(tool_flags, json=json_path)), env, hosts), log)
    # A failed job on several hosts probes all of them: a lost host fails jobs that do not
    # run on it too (its storage daemon, a peer job's ranks).
    probed = remember_host_names(launcher.used_hosts())
    try:
        rc = job.wait(timeout)
        if rc is None:
            raise JobError(f"{label}: did not finish within {timeout} s{failure_cause(probed)} "
                           f"(stopped; see {log.name})")
    finally:
        job.stop()
    if rc != 0:
        raise JobError(f"{label}: {tool} exited with code {rc}{failure_cause(probed)}: {job.error_said()} "
                       f"(see {log.name})")
    return read_json_lines(json_path)


class ServerJob:
    """Context manager: a running server job; `uri` is its info endpoint."""

    def __init__(self, launcher, ranks, env, server_flags, ready_file, log, ready_timeout=120, hosts=None):
        self.launcher, self.ranks, self.env, self.flags = launcher, ranks, env, server_flags
        self.ready_file, self.log, self.ready_timeout = ready_file, log, ready_timeout
        self.hosts = launcher.used_hosts(hosts)
        self.probed = remember_host_names(launcher.used_hosts())  # every host, when a failure is explained
        self.job, self.uri = None, None

    def __enter__(self):
        if os.path.exists(self.ready_file):
            os.remove(self.ready_file)
        args = flags(**dict(self.flags, info_port=0, ready_file=self.ready_file))
        self.job = _start("servers", self.launcher.command(self.ranks, "server", args, self.env, self.hosts), self.log)
        self.uri = wait_until(self._ready_uri, self.ready_timeout)
        if not self.uri:
            self.job.stop()
            raise JobError(f"servers not ready within {self.ready_timeout} s{failure_cause(self.probed)} "
                           f"(see {self.log.name})")
        return self

    def _ready_uri(self):
        uri = published_uri(self.ready_file)
        if not uri and not self.job.running():
            raise JobError(f"servers exited with code {self.job.proc.returncode} before becoming ready"
                           f"{failure_cause(self.probed)}: {self.job.error_said()} (see {self.log.name})")
        return uri

    def __exit__(self, exc_type, exc, tb):
        stopped_by_us = self.job.running()
        self.job.stop(grace=120)
        rc = self.job.proc.returncode
        if stopped_by_us and rc == -signal.SIGKILL:
            raise JobError("servers did not stop within 120 s of SIGTERM")
        if exc_type is None and rc != 0:
            raise JobError(f"servers exited with code {rc}{failure_cause(self.probed)}: {self.job.error_said()} "
                           f"(see {self.log.name})")
        return False
