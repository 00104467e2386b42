"""The machine around a run (mpijobs): a thread that reads, every `period` seconds while the
run lasts, the machine's CPU counters (/proc/stat's aggregate `cpu` line, as the kernel
wrote it), the 1-minute load average and the CPU seconds this process and every process
below it have used so far; and the readings that cover one phase, for its document.

Why here and not in the tools: runs.py starts every job of a run, so it alone knows which
processes are the run's (its process tree: mpiexec, proxies, clients, servers) and sees
every implementation's jobs alike, also a tool that knows nothing of this; and the C++ hot
paths stay free of it. What other processes used over a phase is the machine's busy time
minus the run's own, over the readings around it: the workflow works it out from the raw
readings (workflows/environment/phase.py, the one parser of /proc/stat), so a phase
document carries the facts, not a verdict. A reading costs a few reads of /proc (well under
a millisecond); the thread sleeps between readings."""
import os
import threading
import time
from datetime import datetime

from . import procs

PERIOD_S = 0.25


def _cpu_line():
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu "):
                return line.strip()
    return ""


def _load_1m():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def _tree_cpu_s():
    """(CPU seconds used so far by this process and every process below it, live or ended;
    how many processes were read)."""
    t = os.times()
    tree = procs.process_tree(os.getpid())
    return t.user + t.system + t.children_user + t.children_system + sum(procs.cpu_seconds(p) for p in tree), len(tree)


class _ServingCpu:
    """CPU seconds the processes `names()` lists used while this run watched them: each counts
    from its first reading on, by its own increments, so one that starts or ends between two
    readings (another test's Ceph daemon, on a busy machine) neither adds the CPU it used
    before nor takes back the CPU it used in all (which made the run's own share fall below
    zero and the other processes' rise above all the CPUs)."""

    def __init__(self, names):
        self.names, self.seen, self.total = names, {}, 0.0

    def __call__(self):
        """(their CPU seconds so far, how many processes were read)."""
        now = {pid: procs.cpu_seconds(pid) for pid in self.names()}
        self.total += sum(max(cpu - self.seen[pid], 0.0) for pid, cpu in now.items() if pid in self.seen)
        self.seen = now
        return self.total, len(now)


def _shm():
    try:
        st = os.statvfs("/dev/shm")
    except OSError:
        return None
    return {"size_bytes": st.f_blocks * st.f_frsize, "free_bytes": st.f_bavail * st.f_frsize}


class Sampler:
    """Context manager: readings [wall time, /proc/stat's cpu line, load 1 min, own CPU s,
    processes read, seconds the reading took] from entering to leaving, one every `period`
    seconds and one at each end. The last two bound the reading's error: the kernel gives
    each process's CPU time in whole ticks (rounded down), and the processes are read after
    /proc/stat, while they run (workflows/environment/phase.py allows for both). `serving`:
    a function naming processes outside the run's tree whose CPU is the run's too (the Ceph
    daemons of this machine that hold its stores). `servers`: a function naming those of
    them that are the run's metadata servers (CephFS's MDS), whose CPU over a phase
    servers_cpu gives."""

    def __init__(self, period=PERIOD_S, serving=list, servers=list):
        self.period, self.readings, self.serving = period, [], _ServingCpu(serving)
        self.servers, self.servers_read = _ServingCpu(servers), []  # (their CPU s, processes) per reading
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="sampler", daemon=True)
        self.shm = None

    def read(self):
        when, line, load = time.time(), _cpu_line(), _load_1m()
        (tree, in_tree), (serving, served) = _tree_cpu_s(), self.serving()
        self.servers_read.append(self.servers())
        # The run's CPU only grows, but a reading can come out lower than the one before when a
        # process of the tree ends while the tree is read (its parent read before it reaped
        # the process, the process after: counted in neither): the higher of the two is kept.
        own = max([tree + serving] + [r[3] for r in self.readings[-1:]])
        self.readings.append([when, line, load, own, 1 + in_tree + served, time.time() - when])

    def _loop(self):
        while not self._stop.wait(self.period):
            self.read()

    def __enter__(self):
        self.shm = _shm()
        self.read()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.read()
        return False

    @staticmethod
    def _bounds(doc):
        """(start, end) of a phase document in Unix seconds: its end is `finished_at_unix_s`
        (written just after the phase), else `finished_at` in whole seconds, so up to a
        second later is taken too; its start that less `elapsed_s`. None without them."""
        try:
            end = doc.get("finished_at_unix_s")
            if end is None:
                end = datetime.strptime(doc["finished_at"], "%Y-%m-%dT%H:%M:%S%z").timestamp() + 1
                return end - 1 - float(doc["elapsed_s"]), end
            return float(end) - float(doc["elapsed_s"]), float(end)
        except (KeyError, TypeError, ValueError):
            return None

    def _span(self, doc):
        """The indices of the readings around a phase document (_bounds): from the last one
        before the phase began to the first one after it ended; every reading of the run for
        a document without its times."""
        readings, bounds = self.readings, self._bounds(doc)
        if bounds is None:
            return 0, len(readings) - 1
        start, end = bounds
        first = max([i for i, r in enumerate(readings) if r[0] <= start] or [0])
        last = min([i for i, r in enumerate(readings) if r[0] >= end] or [len(readings) - 1])
        return first, last

    def around(self, doc):
        """{"period_s", "readings", "shm"} for a phase document: the readings around it (_span)."""
        first, last = self._span(doc)
        return {"period_s": self.period, "readings": self.readings[first:last + 1], "shm": self.shm}

    def servers_cpu(self, doc):
        """(CPU seconds, processes): what the `servers` processes used over a phase document
        (_bounds), and the most of them read at once over the readings around it. Their CPU
        at the phase's start and end is interpolated between the readings on either side
        (PERIOD_S apart), as if they used it evenly in between: off by at most what they used
        in those two periods. A document without its times gets the whole run's."""
        first, last = self._span(doc)
        span = self.servers_read[first:last + 1]
        processes = max(count for _, count in span)
        bounds = self._bounds(doc)
        if bounds is None:
            return span[-1][0] - span[0][0], processes
        return self._servers_cpu_at(bounds[1], first, last) - self._servers_cpu_at(bounds[0], first, last), processes

    def _servers_cpu_at(self, when, first, last):
        """The servers' CPU seconds at time `when`, interpolated between the two readings of
        first..last on either side of it (the nearer end's where it lies outside them)."""
        points = [(self.readings[i][0], self.servers_read[i][0]) for i in range(first, last + 1)]
        for (t0, c0), (t1, c1) in zip(points, points[1:], strict=False):
            if t0 <= when <= t1:
                return c0 + (c1 - c0) * (when - t0) / (t1 - t0) if t1 > t0 else c1
        return points[0][1] if when < points[0][0] else points[-1][1]
