"""What /proc tells about a job's processes (mpijobs): the processes below mpiexec, those
carrying an environment tag, a rank's threads, memory and CPU time; and signals to a set of them,
with a way to spare a pid the kernel has meanwhile given to another process."""
import os
import signal

CEPH_DAEMONS = ("ceph-mon", "ceph-mgr", "ceph-osd", "ceph-mds")  # the MDS serves CephFS runs
DEFAULT_CEPH_CONF = "/etc/ceph/ceph.conf"  # where Ceph's daemons and clients look without -c or CEPH_CONF


def stat(pid):
    """(state, parent pid, start time) of a process, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return fields[0], int(fields[1]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def cpu_seconds(pid):
    """User + system CPU seconds of process `pid` and of its ended children it has waited
    for, or 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return sum(int(v) for v in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _live():
    """{pid: parent pid} of every live process (zombies left out)."""
    parents = {}
    for entry in os.listdir("/proc"):
        st = stat(entry) if entry.isdigit() else None
        if st and st[0] not in ("Z", "X"):
            parents[int(entry)] = st[1]
    return parents


def descendants(root):
    """Every live process below `root` (mpiexec's proxies and ranks), from one scan of /proc."""
    children = {}
    for pid, parent in _live().items():
        children.setdefault(parent, []).append(pid)
    out, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def process_tree(root):
    """Every live process below `root`, from the kernel's child lists (cheap enough to walk
    every few milliseconds, unlike a scan of /proc)."""
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    children = [int(c) for c in f.read().split()]
            except (OSError, ValueError):
                continue
            out += children
            todo += children
    return out


def tagged(name, value):
    """Every live process whose environment has name=value (set where a job starts, it reaches
    every rank, also those mpiexec starts in sessions of their own)."""
    marker = f"{name}={value}\0".encode()
    pids = []
    for pid in _live():
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if marker in f.read():
                    pids.append(pid)
        except OSError:
            continue
    return pids


def running_tools(tool_names, name, value):
    """The live processes of this host running one of `tool_names` (by executable) whose
    environment has name=value: a job's ranks that its launcher did not start itself (srun's
    are slurmstepd's children). Reads only the environment of the tools' processes."""
    marker = f"{name}={value}\0".encode()
    pids = []
    for entry in os.listdir("/proc"):
        try:
            if not entry.isdigit() or os.path.basename(os.readlink(f"/proc/{entry}/exe")) not in tool_names:
                continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                if marker in f.read():
                    pids.append(int(entry))
        except OSError:
            continue
    return pids


def ceph_daemons(conf, names=CEPH_DAEMONS):
    """The live Ceph daemons `names` (every kind: ceph-mon, ceph-mgr, ceph-osd, ceph-mds) of the
    cluster whose configuration file is `conf`: those started with it (-c, --conf), or with none
    where `conf` is Ceph's default, /etc/ceph/ceph.conf. Other clusters' daemons on this machine
    are left out."""
    wanted = os.path.realpath(conf or DEFAULT_CEPH_CONF)
    pids = []
    for pid in named(names):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if os.path.realpath(_conf_of(args)) == wanted:
            pids.append(pid)
    return pids


def _conf_of(args):
    """The configuration file a Ceph daemon's arguments name, Ceph's default without one."""
    for i, arg in enumerate(args):
        if arg in ("-c", "--conf") and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--conf="):
            return arg.split("=", 1)[1]
    return DEFAULT_CEPH_CONF


def named(programs):
    """Every live process running one of `programs` (as /proc's comm shows them)."""
    pids = []
    for pid in _live():
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() in programs:
                    pids.append(pid)
        except OSError:
            continue
    return pids


def started(pids):
    """{pid: start time} of those of `pids` still alive, for same()."""
    times = {pid: stat(pid) for pid in pids}
    return {pid: st[2] for pid, st in times.items() if st}


def same(start_times):
    """The pids of started()'s answer that are still the same processes (same start time)."""
    return [pid for pid, t in start_times.items() if (stat(pid) or (None, None, None))[2] == t]


def kill(pids, sig=signal.SIGKILL):
    """Sends `sig` to every pid of `pids` still alive."""
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def rank_threads(pids, program):
    """{pid: sorted thread names} of those of `pids` running `program` (as /proc's comm shows
    it: its first 15 characters)."""
    threads = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() != program[:15]:
                    continue
            names = []
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    names.append(f.read().strip())
        except OSError:
            continue
        threads[pid] = sorted(names)
    return threads


def rank_memory_kb(pid, tool_names):
    """{"resident": VmHWM, "private": RssAnon} of process `pid` in KiB if it runs one of
    `tool_names`, else {}."""
    fields = {"VmHWM:": "resident", "RssAnon:": "private"}
    try:
        if os.path.basename(os.readlink(f"/proc/{pid}/exe")) not in tool_names:
            return {}
        with open(f"/proc/{pid}/status") as f:
            return {fields[w[0]]: int(w[1]) for w in map(str.split, f) if w and w[0] in fields}
    except (OSError, ValueError, IndexError):
        return {}


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def rank_cpu_s(pid, tool_names):
    """CPU seconds (user + system) process `pid` has used if it runs one of `tool_names`,
    else None."""
    try:
        if os.path.basename(os.readlink(f"/proc/{pid}/exe")) not in tool_names:
            return None
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    except (OSError, IndexError, ValueError):
        return None
