"""MPI command lines for the deltameta tools (mpijobs): mpiexec, ranks, the hosts of an MPICH
hostfile, settings for every rank; and the hosts of a failed job that no longer answer, with
their names."""
import ipaddress
import os
import socket
import threading
import time

from .job import JobError

TOOLS = {role: "deltameta_" + role for role in ("server", "client", "compactor", "storage", "mdworkbench")}


def flags(**kw):
    """flags(n=2000, share_dir=1) -> ['--n=2000', '--share_dir=1']"""
    return ["--%s=%s" % (k, v) for k, v in kw.items()]


def read_hostfile(path):
    """The host names of an MPICH hostfile ("host[:slots]" per line, # comments), in order."""
    try:
        with open(path) as f:
            lines = [line.split("#", 1)[0].strip() for line in f]
    except OSError as e:
        raise JobError(f"hostfile {path}: {e.strerror}: set mpi.hostfile to a readable MPICH hostfile") from None
    hosts = [line.split(":", 1)[0] for line in lines if line]
    if not hosts:
        raise JobError(f"hostfile {path} names no host")
    return hosts


class Launcher:
    """Builds mpiexec command lines for the tools in `bin_dir`: `names` maps a role ("server",
    "client", ...) to its executable; any other tool name is an executable's own. With a
    hostfile of several hosts, a job runs on the hosts it is given (one rank per host in
    turn), all of them by default. Every rank runs `wrapper` + tool + args where a wrapper is
    given (a program that readies the rank's host, then execs the tool). A job on this host
    alone gets UCX_NET_DEVICES=lo unless the caller or the environment sets it, as the core's
    own tools do (core/doc/transports.md): a network device removed while UCX starts (a
    Docker network going away) fails MPI_Init, also in programs not ours."""

    def __init__(self, bin_dir, mpiexec="mpiexec", hostfile=None, names=TOOLS, wrapper=()):
        self.bin_dir, self.mpiexec, self.names, self.wrapper = bin_dir, mpiexec, names, list(wrapper)
        self.hostfile = hostfile
        self.hosts = read_hostfile(hostfile) if hostfile else []

    def tool(self, name):
        return os.path.join(self.bin_dir, self.names.get(name, name))

    def spans_hosts(self):
        return len(set(self.hosts)) > 1

    def used_hosts(self, hosts=None):
        """The hosts a job given `hosts` (None: all) runs on when the hostfile spans several
        hosts, else [] (every job on this host)."""
        return (hosts or self.hosts) if self.spans_hosts() else []

    def command(self, ranks, tool, args=(), env=None, hosts=None, mpi_args=(), wrapper=()):
        """`ranks` ranks of the wrapper (this job's, else the launcher's) + tool + args;
        mpi_args go to mpiexec, and `env` to every rank (-env)."""
        cmd = [self.mpiexec, "-n", str(ranks)]
        if self.spans_hosts():
            cmd += ["-hosts", ",".join(h + ":1" for h in hosts or self.hosts)]
        elif self.hostfile:
            cmd += ["-f", self.hostfile]
        cmd += list(mpi_args)
        if not self.spans_hosts() and "UCX_NET_DEVICES" not in os.environ:
            env = {"UCX_NET_DEVICES": "lo", **(env or {})}
        for key, value in sorted((env or {}).items()):
            cmd += ["-env", key, str(value)]
        return cmd + list(wrapper or self.wrapper) + [self.tool(tool)] + list(args)


def lost_hosts(hosts, port=22, timeout=3):
    """The hosts among `hosts` whose ssh port (what MPI's launcher uses) does not answer."""
    lost = []
    for host in dict.fromkeys(hosts):
        try:
            socket.create_connection((host, port), timeout=timeout).close()
        except OSError:
            lost.append(host)
    return lost


_NAMES = {}  # address -> the name it resolved back to while a job started (remember_host_names)


def _look_up(host):
    """Puts the name `host`, an address, resolves back to (e.g. a container's, from Docker's
    name service) in _NAMES; a name, or an address that resolves to none, adds nothing."""
    try:
        ipaddress.ip_address(host)
        name = socket.gethostbyaddr(host)[0]
    except (ValueError, OSError):
        return
    if name != host:
        _NAMES[host] = name


def remember_host_names(hosts, timeout=2.0):
    """Looks each of `hosts` up by address now, while they answer (a lost host may leave the
    name service too: a stopped container leaves Docker's), side by side and for `timeout`
    seconds at most in all: a name service that does not answer delays no job; a host it
    has not named by then stays unnamed. Returns `hosts`."""
    lookups = [threading.Thread(target=_look_up, args=(h,), daemon=True) for h in dict.fromkeys(hosts)
               if h not in _NAMES]
    for t in lookups:
        t.start()
    deadline = time.monotonic() + timeout
    for t in lookups:
        t.join(max(deadline - time.monotonic(), 0))
    return hosts


def host_name(host):
    """The name `host` resolved back to when a job on it started (remember_host_names), else None."""
    return _NAMES.get(host)


def failure_cause(hosts, port=22):
    """" after losing host X (its name)" when one of `hosts` (a job's hosts, empty when every
    job runs on this host) no longer answers on `port`, else ""."""
    lost = [h + (f" ({host_name(h)})" if host_name(h) else "") for h in lost_hosts(hosts, port)] if hosts else []
    return f" after losing host {', '.join(lost)} (it does not answer on the ssh port)" if lost else ""
