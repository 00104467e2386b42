"""Runs deltameta jobs under MPI: one-shot jobs (client, compactor) and server jobs that are
started, awaited until ready through their --ready_file, and always stopped, also when the
caller fails or is killed. Used by the seed-run benchmark and by the Snakemake workflow."""
import ctypes
import json
import os
import signal
import socket
import subprocess
import time

PR_SET_PDEATHSIG = 1


class JobError(RuntimeError):
    """A job failed: its message names the job and how."""


def _die_with_parent():
    # The server job gets SIGTERM if the process that started it dies, even by SIGKILL.
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def read_hostfile(path):
    """The host names of an MPICH hostfile ("host[:slots]" per line, # comments), in order."""
    try:
        with open(path) as f:
            lines = [line.split("#", 1)[0].strip() for line in f]
    except OSError as e:
        raise JobError(f"hostfile {path}: {e.strerror}: set mpi.hostfile to a readable MPICH hostfile")
    hosts = [line.split(":", 1)[0] for line in lines if line]
    if not hosts:
        raise JobError(f"hostfile {path} names no host")
    return hosts


class Launcher:
    """Builds MPI command lines for the deltameta tools. With a hostfile of several hosts, a
    job runs on the hosts it is given (one rank per host in turn), all of them by default."""

    def __init__(self, bin_dir, mpiexec="mpiexec", hostfile=None, extra_args=()):
        self.bin_dir, self.mpiexec = bin_dir, mpiexec
        self.hostfile, self.extra_args = hostfile, list(extra_args)
        self.hosts = read_hostfile(hostfile) if hostfile else []

    def tool(self, name):
        return os.path.join(self.bin_dir, "deltameta_" + name)

    def spans_hosts(self):
        return len(set(self.hosts)) > 1

    def command(self, ranks, env, tool, flags, hosts=None):
        cmd = [self.mpiexec, "-n", str(ranks)]
        if self.spans_hosts():
            cmd += ["-hosts", ",".join(h + ":1" for h in hosts or self.hosts)]
        elif self.hostfile:
            cmd += ["-f", self.hostfile]
        cmd += self.extra_args
        for key, value in sorted(env.items()):
            cmd += ["-env", key, str(value)]
        return cmd + [self.tool(tool)] + [f"--{k}={v}" for k, v in flags.items()]


def read_json_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def lost_hosts(hosts, port=22, timeout=3):
    """The hosts among `hosts` whose ssh port (what MPI's launcher uses) does not answer."""
    lost = []
    for host in dict.fromkeys(hosts):
        try:
            socket.create_connection((host, port), timeout=timeout).close()
        except OSError:
            lost.append(host)
    return lost


def failure_cause(hosts):
    """" after losing host X" when one of `hosts` (a job's hosts, empty when every job runs
    on this host) no longer answers, else ""."""
    lost = lost_hosts(hosts) if hosts else []
    return f" after losing host {', '.join(lost)} (it does not answer on the ssh port)" if lost else ""


def run_job(launcher, label, ranks, env, tool, flags, json_path, log, timeout, hosts=None):
    """Runs one job to completion, its output appended to `log`; returns its JSON documents."""
    cmd = launcher.command(ranks, env, tool, dict(flags, json=json_path), hosts)
    log.write("$ " + " ".join(cmd) + "\n")
    log.flush()
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
    used = (hosts or launcher.hosts) if launcher.spans_hosts() else []
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise JobError(f"{label}: did not finish within {timeout} s{failure_cause(used)} (stopped; see {log.name})")
    finally:
        stop(proc)
    if rc != 0:
        raise JobError(f"{label}: {tool} exited with code {rc}{failure_cause(used)} (see {log.name})")
    return read_json_lines(json_path)


def stop(proc, grace=60):
    """Stops a job that is still running: SIGTERM (mpiexec passes it to every rank), then SIGKILL."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class ServerJob:
    """Context manager: a running server job; `uri` is its info endpoint."""

    def __init__(self, launcher, ranks, env, flags, ready_file, log, ready_timeout=120, hosts=None):
        self.launcher, self.ranks, self.env, self.flags = launcher, ranks, env, flags
        self.ready_file, self.log, self.ready_timeout = ready_file, log, ready_timeout
        self.hosts = (hosts or launcher.hosts) if launcher.spans_hosts() else []
        self.proc, self.uri = None, None

    def __enter__(self):
        if os.path.exists(self.ready_file):
            os.remove(self.ready_file)
        flags = dict(self.flags, info_port=0, ready_file=self.ready_file)
        cmd = self.launcher.command(self.ranks, self.env, "server", flags, self.hosts)
        self.log.write("$ " + " ".join(cmd) + "\n")
        self.log.flush()
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        deadline = time.monotonic() + self.ready_timeout
        while not os.path.exists(self.ready_file):
            if self.proc.poll() is not None:
                raise JobError(f"servers exited with code {self.proc.returncode} before becoming ready"
                               f"{failure_cause(self.hosts)} (see {self.log.name})")
            if time.monotonic() > deadline:
                stop(self.proc)
                raise JobError(f"servers not ready within {self.ready_timeout} s{failure_cause(self.hosts)} "
                               f"(see {self.log.name})")
            time.sleep(0.05)
        with open(self.ready_file) as f:
            self.uri = f.read().strip()
        return self

    def __exit__(self, exc_type, exc, tb):
        stopped_by_us = self.proc.poll() is None
        stop(self.proc, grace=120)
        if stopped_by_us and self.proc.returncode == -signal.SIGKILL:
            raise JobError("servers did not stop within 120 s of SIGTERM")
        if exc_type is None and self.proc.returncode != 0:
            raise JobError(f"servers exited with code {self.proc.returncode}{failure_cause(self.hosts)} "
                           f"(see {self.log.name})")
        return False


def stop_on_signals():
    """Turns SIGTERM into an exception so that `with ServerJob(...)` blocks stop their servers."""
    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, handler)
