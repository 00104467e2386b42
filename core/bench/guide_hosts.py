"""Where the guide's jobs (guide.py) run when the hostfile names several hosts, as runs.py
places ours: IndexFS servers on the first host and their clients on the others; the DeltaFS
writers, compactors, read-only servers and their clients on every host. The original's
servers, and its parallel compactor, whose ranks talk to each other, take one address prefix
for all their ranks (`--ip`, each rank listening on the first address of its host that starts
with it; the guide's default 127.0.0.1 works on one host only) and the servers' rank 0 (on
the job's first host) serves the info port its clients are given; with `--print_ips=1` rank 0
prints every rank's address, which the run records."""
import re
import socket

from mpijobs import JobError


def hosts_for(launcher, role):
    """The hosts a job of `role` ("servers", "clients" or None) is given: None on one host."""
    if not launcher.spans_hosts():
        return None
    if role == "servers":
        return launcher.hosts[:1]
    return launcher.hosts[1:] if role == "clients" else launcher.hosts


def address(host):
    """The IPv4 address of `host` (a name or an address)."""
    try:
        return socket.gethostbyname(host)
    except OSError as e:
        raise JobError(f"host {host} of the hostfile: no IPv4 address ({e}): name hosts the launching host "
                       "can resolve, or give their addresses") from None


def ip_prefix(hosts):
    """The `--ip` prefix every host of `hosts` has an address under: the one address, or the
    dotted prefix their addresses share (e.g. 10.0.0.)."""
    addresses = [address(h) for h in hosts]
    if len(set(addresses)) == 1:
        return addresses[0]
    parts = [a.split(".") for a in addresses]
    shared = []
    for octets in zip(*parts, strict=False):
        if len(set(octets)) > 1:
            break
        shared.append(octets[0])
    if not shared:
        listed = ", ".join(f"{h} ({a})" for h, a in zip(hosts, addresses, strict=True))
        raise JobError(f"the original's servers take one address prefix (--ip) for all their ranks, and hosts "
                       f"{listed} share none: give a hostfile whose hosts are on one network")
    return ".".join(shared) + "."


def server_flags(launcher, role):
    """(the servers' flags: {"ip": prefix, "print_ips": 1}, or {} on one host as the guide has
    it; the address of the servers' rank 0: 127.0.0.1 on one host)."""
    hosts = hosts_for(launcher, role)
    if not hosts:
        return {}, "127.0.0.1"
    return {"ip": ip_prefix(hosts), "print_ips": 1}, address(hosts[0])


def server_addresses(stdout):
    """The addresses (host:port) the servers' rank 0 printed for every rank with --print_ips=1."""
    dumped = stdout.split("Dumping fs uri(s) >>>", 1)
    return re.findall(r"^(\d+\.\d+\.\d+\.\d+:\d+)$", dumped[1], re.M) if len(dumped) == 2 else []
