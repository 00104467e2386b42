"""The seed guide's three runs as its command lines, on the tools of either implementation:
ours (deltameta_server, deltameta_client, deltameta_compactor) or the original DeltaFS
prototype's (deltafs_bm_svr, deltafs_bm_cli, parallel_compactor), with the guide's flags,
DELTAFS_Db_* settings and rank counts; only the file count, the ranks, the store root and the
servers' info port (the guide's 10086 unless another is given) change. Servers are awaited by
their "Running..." line (both implementations print it; never a fixed sleep) and stopped with
SIGINT like the guide's ^C. Results are the "==<phase> : ... Mop/s ..." lines of the clients
and the compactor ("==fstats" lines are lstats, "==mapreduce" the compaction), and each
phase's failed operations are the clients' "<rank>: Fail to ..." lines (the original reports
a failed operation that way and goes on). Used by side_by_side.py, scale.py and
original_runs.py (the workflow's runs of the original)."""
import os
import random
import re
import shutil
import signal
import socket
import threading
import time

import guide_hosts
from mpijobs import Job, JobError, Launcher, flags, process_tree, rank_cpu_s, rank_memory_kb, wait_until
from mpijobs.procs import running_tools
from runs import COMPACTOR_COMPAT_FLAGS, COMPACTOR_ENV, DELTAFS_WRITE_ENV, SERVER_ENV, SERVER_FLAGS

GUIDE_INFO_PORT = 10086
# Set in every job's ranks (-env): how the sampler finds ranks that are not below the job's
# launcher (srun's, started by slurmstepd; workflows/bin/srun_mpiexec.py).
JOB_TAG = "DELTAMETA_GUIDE_JOB"
MEMORY_SAMPLE_S = 0.05
TOOL_NAMES = {
    # deltameta_client becomes deltameta_client_store for --bk=1 and --fs_use_local=1.
    "ours": {"server": "deltameta_server", "client": "deltameta_client", "compactor": "deltameta_compactor",
             "client_store": "deltameta_client_store"},
    "original": {"server": "deltafs_bm_svr", "client": "deltafs_bm_cli", "compactor": "parallel_compactor"},
}
RESULT = re.compile(r"==(\w+)\s*:\s*([0-9.]+) micros/op,\s*([0-9.]+) Mop/s,\s*([0-9.]+) s,\s*(\d+) ops")
# A client's failed operation, by the phase it belongs to ("<rank>: Fail to lstat: ...").
FAILED_OP = re.compile(r"^\d+: (Fail to lstat|Fail to mkfle|Fail to mkdir|Fail to bulk insert|Fail to commit|"
                       r"Cannot insert|Cannot add name)", re.M)
# The original's tools as the workflow builds them (rule build_original), the benchmarks' --original default.
WORKFLOW_BUILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "results", "original",
                              "install", "bin")
BUILD_COMMAND = ("snakemake --cores all --configfile config/profiles/reproduce.yaml --until build_original "
                 "(config/README.md, \"The original prototype\")")
JOB_LABELS = {"svr": "servers", "cli": "client", "write": "DeltaFS write", "compact": "compaction",
              "read": "read client"}


class Jobs:
    """Every mpiexec job the script starts; kill_all() stops whatever is still running.
    Sampled every MEMORY_SAMPLE_S while a job runs, and once more as it ends: peak_kb[name],
    a job's peak memory in KiB, {"resident": the largest resident-set high-water mark (VmHWM)
    of any one of its ranks, "private": the largest anonymous resident memory (RssAnon: heap,
    stacks; no code or shared memory) of any one rank seen}; and the CPU time of its ranks,
    marked when it starts and when each of its result lines appears (phase_cpu). A job's ranks
    are the tools' processes below its launcher or, where none are (srun's steps), those on
    this host whose environment carries the job's tag (JOB_TAG): ranks on other hosts are not
    seen."""

    def __init__(self, log_dir, timeout, tool_names):
        self.log_dir, self.timeout, self.running = log_dir, timeout, []
        self.tool_names, self.peak_kb = set(tool_names), {}
        self.cpu_s = {}  # job name -> {rank pid: CPU seconds last seen}
        self.marks = {}  # job name -> {"start" or a phase it printed: {job name: its ranks' CPU seconds then}}
        self.printed_at = {}  # job name -> {phase: wall time its result line was first seen}
        self.lock = threading.Lock()
        self.tags = {}  # job name -> its JOB_TAG value
        self.commands = open(os.path.join(log_dir, "commands.log"), "a")
        self.done = threading.Event()
        self.sampler = threading.Thread(target=self.sample_every_interval, daemon=True)
        self.sampler.start()

    def sample_every_interval(self):
        while not self.done.wait(MEMORY_SAMPLE_S):
            self.sample(list(self.running))

    def cpu_now(self):
        return {name: sum(pids.values()) for name, pids in self.cpu_s.items()}

    def sample(self, jobs):
        with self.lock:
            for job in jobs:
                peak = self.peak_kb.setdefault(job.name, {"resident": 0, "private": 0})
                cpu = self.cpu_s.setdefault(job.name, {})
                for pid in self.ranks(job):
                    for key, kb in rank_memory_kb(pid, self.tool_names).items():
                        peak[key] = max(kb, peak[key])
                    seconds = rank_cpu_s(pid, self.tool_names)
                    if seconds is not None:
                        cpu[pid] = max(seconds, cpu.get(pid, 0.0))
                marks = self.marks.setdefault(job.name, {"start": self.cpu_now()})
                for m in RESULT.finditer(job.stdout()):
                    if m[1] not in marks:
                        marks[m[1]] = self.cpu_now()
                        self.printed_at.setdefault(job.name, {})[m[1]] = time.time()

    def ranks(self, job):
        below = process_tree(job.proc.pid)
        if any(rank_cpu_s(pid, self.tool_names) is not None for pid in below):
            return below
        return running_tools(self.tool_names, JOB_TAG, self.tags[job.name])

    def phase_cpu(self, client, servers, phases):
        """{phase: (CPU seconds of `client`'s ranks, of `servers`' ranks)} over each of the
        client job's printed `phases`, from its start or the phase before (servers: None)."""
        out, marks = {}, self.marks[client]
        before = marks["start"]
        for phase in phases:
            now = marks[phase]
            out[phase] = tuple(now.get(job, 0.0) - before.get(job, 0.0) if job else 0.0 for job in (client, servers))
            before = now
        return out

    def start(self, launcher, name, ranks, env, tool, tool_flags, cwd, hosts=None):
        self.tags[name] = f"{os.getpid()}-{name}"
        cmd = launcher.command(ranks, tool, flags(**tool_flags), dict(env, **{JOB_TAG: self.tags[name]}), hosts)
        self.commands.write(f"[{time.strftime('%H:%M:%S')}] {name}: " + " ".join(cmd) + "\n")
        self.commands.flush()
        job = Job(name, cmd, os.path.join(self.log_dir, name + ".out"), os.path.join(self.log_dir, name + ".err"),
                  cwd=cwd)
        with self.lock:
            self.marks[name] = {"start": self.cpu_now()}
        self.running.append(job)
        return job

    def finish(self, job, grace=30):
        """Stops `job` if it still runs (SIGTERM, then SIGKILL) and any rank it left behind;
        its result lines printed since the last sample are marked now."""
        self.sample([job])
        job.stop(grace, tree=True)
        if job in self.running:
            self.running.remove(job)

    def run(self, launcher, name, ranks, env, tool, tool_flags, cwd, hosts=None):
        """Runs a job to completion within the timeout; returns the finished Job."""
        job = self.start(launcher, name, ranks, env, tool, tool_flags, cwd, hosts)
        try:
            rc = job.wait(self.timeout)
            if rc is None:
                why = (" (across hosts the original's tools can hang in MPI_Finalize, after their results, over "
                       "UCX's TCP transport: core/doc/transports.md)") if len(set(hosts or [])) > 1 else ""
                raise JobError(f"{name}: did not finish within {self.timeout} s{why} (stopped; see {job.out_path})")
        finally:
            self.finish(job)
        if rc != 0:
            raise JobError(f"{name}: exited with code {rc}: {job.error_said()} (see {job.err_path})")
        return job

    def kill_all(self):
        for job in list(self.running):
            self.finish(job, grace=10)
        self.done.set()
        self.sampler.join()
        self.commands.close()


class Servers:
    """Context manager: a server job started with the guide's command line, awaited by its
    "Running..." line and stopped with SIGINT (the guide's ^C)."""

    def __init__(self, jobs, launcher, name, ranks, env, flags, cwd, port, ready_timeout, stop_timeout, hosts=None):
        self.jobs, self.launcher, self.name, self.ranks, self.hosts = jobs, launcher, name, ranks, hosts
        self.env, self.flags, self.cwd, self.port = env, flags, cwd, port
        self.ready_timeout, self.stop_timeout = ready_timeout, stop_timeout

    def __enter__(self):
        if port_in_use(self.port):
            raise JobError(f"{self.name}: port {self.port} on 127.0.0.1 is in use by another program "
                           f"(pass --info-port with a free port)")
        self.job = self.jobs.start(self.launcher, self.name, self.ranks, self.env, "server", self.flags, self.cwd,
                                   self.hosts)
        if not wait_until(self.said_running, self.ready_timeout):
            self.jobs.finish(self.job)
            raise JobError(f"{self.name}: no Running... within {self.ready_timeout} s (see {self.job.out_path})")
        return self

    def said_running(self):
        """Whether the servers printed Running...; fails if they exited first."""
        if "Running..." in self.job.stdout():
            return True
        if not self.job.running():
            self.jobs.finish(self.job)
            raise JobError(f"{self.name}: exited with code {self.job.proc.returncode} before printing Running...: "
                           f"{self.job.error_said()} (see {self.job.err_path})")
        return False

    def __exit__(self, exc_type, exc, tb):
        job = self.job
        if job.running():
            job.signal(signal.SIGINT)  # mpiexec passes it on to every rank, like ^C
            job.wait(self.stop_timeout)
        still_running = job.running()
        self.jobs.finish(job)
        if exc_type is None:
            if still_running:
                raise JobError(f"{self.name}: still running {self.stop_timeout} s after SIGINT (killed)")
            if job.proc.returncode != 0:
                raise JobError(f"{self.name}: exited with code {job.proc.returncode} after SIGINT: "
                               f"{job.error_said()} (see {job.err_path})")
        return False


def port_in_use(port):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def free_port():
    """A port of 127.0.0.1 nothing uses now, below the kernel's ephemeral range: a port the
    kernel picks (bind to 0) is one it also gives outgoing connections (a RADOS client's, MPI's),
    and one of them took it between this pick and the servers' bind ("Address already in use")."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    for port in random.sample(range(10000, max(10001, low)), min(200, max(1, low - 10000))):
        if not port_in_use(port):
            return port
    raise JobError(f"no free port of 127.0.0.1 between 10000 and {low}: pass --info-port with a free one")


def results(job, expect):
    """{phase: {mops, micros_per_op, seconds, ops, failed}} of a finished job's '==phase'
    lines; `expect` maps each phase that must be there to the least number of ops it must
    report. `failed` counts the job's failed operations of that kind (FAILED_OP) for the
    phases that have them (insert, fstats), else 0."""
    text, name = job.stdout(), job.name
    found = {}
    for m in RESULT.finditer(text):
        micros, mops, seconds, ops = float(m[2]), float(m[3]), float(m[4]), int(m[5])
        found[m[1]] = {"mops": ops / seconds / 1e6 if seconds > 0 else mops, "printed_mops": mops,
                       "micros_per_op": micros, "seconds": seconds, "ops": ops}
    for phase, ops in expect.items():
        if phase not in found:
            raise JobError(f"{name}: printed no '=={phase}' result line")
        if found[phase]["ops"] < ops:
            raise JobError(f"{name}: '=={phase}' reports {found[phase]['ops']} ops, expected {ops}")
    kinds = [m[1] for m in FAILED_OP.finditer(job.stderr())]
    for phase, r in found.items():
        r["failed"] = sum(k == "Fail to lstat" for k in kinds) if phase == "fstats" else \
            sum(k != "Fail to lstat" for k in kinds) if phase == "insert" else 0
    return found


def add_original_argument(parser):
    """--original [DIR]: the original's tools; without DIR, the workflow's build of them."""
    parser.add_argument("--original", metavar="DIR", nargs="?", const=WORKFLOW_BUILD,
                        help="also run the original prototype: the folder holding its deltafs_bm_svr, deltafs_bm_cli "
                             "and parallel_compactor; without DIR, the workflow's build of it "
                             "(results/original/install/bin)")


def original_problem(path):
    """What is wrong with --original `path` (one line with the fix), or None."""
    if os.path.isdir(path):
        return None
    if path == WORKFLOW_BUILD:
        return f"--original: the workflow has not built the original prototype yet: {BUILD_COMMAND}"
    return (f"--original {path}: no such directory (give the directory holding the original prototype's "
            f"deltafs_bm_svr, deltafs_bm_cli and parallel_compactor, or no DIR for the workflow's build)")


def with_cpu(found, jobs, name, servers):
    """`found` (results() of job `name`), each phase given its "cpu_s": {"clients", "servers"}
    (jobs.phase_cpu: the ranks' CPU time sampled up to its result line) and "printed_at", the
    wall time its result line was seen."""
    for phase, (clients, servers_s) in jobs.phase_cpu(name, servers, list(found)).items():
        found[phase]["cpu_s"] = {"clients": round(clients, 3), "servers": round(servers_s, 3)}
        found[phase]["printed_at"] = jobs.printed_at[name][phase]
    return found


class GuideTools:
    """One implementation's tools (`key`: "ours" or "original") running the guide's steps:
    the IndexFS runs (servers, then the client's insert and lstat phases), and DeltaFS's write,
    parallel compaction and read. `a` holds the scale (ranks, n, servers, readers), mpiexec,
    info_port, ready_timeout, stop_timeout and keep_stores; jobs run in `work`, with the store
    settings `env` (DELTAFS_Db_*: both implementations read them) over the guide's, and
    `store_flags` on every tool's command line (the original's --env_use_rados=1 on RADOS) and
    `client_flags` on its clients' (ours' --cpu_affinity in side_by_side.py).
    With a `hostfile` of several hosts the jobs are placed as guide_hosts says, the servers
    given their hosts' address prefix and the clients the info port of their rank 0's host;
    every rank starts through `wrapper` where one is given (Launcher)."""

    def __init__(self, key, bin_dir, a, work, env=None, store_flags=None, hostfile=None, wrapper=(),
                 client_flags=None):
        self.key, self.a, self.work, self.overrides = key, a, work, dict(env or {})
        self.store_flags, self.client_flags = dict(store_flags or {}), dict(client_flags or {})
        self.launcher = Launcher(bin_dir, a.mpiexec, hostfile, names=TOOL_NAMES[key], wrapper=wrapper)
        self.uri = f"tcp://127.0.0.1:{a.info_port}"
        self.port_flags = {} if a.info_port == GUIDE_INFO_PORT else {"info_port": a.info_port}
        self.placed = {}  # job name -> the hosts it was given ([]: this host)

    def hosts(self, name, role):
        hosts = guide_hosts.hosts_for(self.launcher, role)
        self.placed[name] = hosts or []
        return hosts

    def servers(self, jobs, name, ranks, env, server_flags, role=None):
        ip, host = guide_hosts.server_flags(self.launcher, role)
        self.uri = f"tcp://{host}:{self.a.info_port}"
        return Servers(jobs, self.launcher, name, ranks, dict(env, **self.overrides),
                       dict(server_flags, **ip, **self.port_flags, **self.store_flags), self.work,
                       self.a.info_port, self.a.ready_timeout, self.a.stop_timeout,
                       self.hosts(name, role))

    def client(self, jobs, name, env, client_flags, expect, servers=None, role=None):
        """The client job `name` (beside the servers job `servers`, if any): its results,
        each phase with the CPU seconds of the client's and the servers' ranks over it."""
        job = jobs.run(self.launcher, name, self.a.ranks, dict(env, **self.overrides), "client",
                       dict(client_flags, **self.store_flags, **self.client_flags), self.work,
                       self.hosts(name, role))
        return with_cpu(results(job, {phase: self.a.ranks * self.a.n for phase in expect}), jobs, name, servers)

    def indexfs(self, jobs, name, root, bulk=False):
        """Run 1 (or with `bulk` run 2): {"insert": result, "lstat": result}."""
        a = self.a
        more = {"bk": 1, "db": f"{root}/cli"} if bulk else {}
        with self.servers(jobs, name + "-svr", a.servers, SERVER_ENV, dict(db=f"{root}/svr", **SERVER_FLAGS),
                          "servers"):
            r = self.client(jobs, name + "-cli", {}, {"share_dir": 1, "n": a.n, **more, "read_phases": 1,
                                                      "info_svr_uri": self.uri, "skip_fs_checks": 0},
                            ["insert", "fstats"], name + "-svr", "clients")
        return {"insert": r["insert"], "lstat": r["fstats"]}

    def deltafs_write(self, jobs, name, origin):
        r = self.client(jobs, name + "-write", DELTAFS_WRITE_ENV,
                        {"db": origin, "share_dir": 1, "n": self.a.n, "read_phases": 0, "skip_fs_checks": 1,
                         "fs_use_local": 1}, ["insert"])
        return {"insert": r["insert"]}

    def deltafs_compact(self, jobs, name, origin, compacted):
        ip, _ = guide_hosts.server_flags(self.launcher, None)  # its ranks talk to each other (UDP)
        job = jobs.run(self.launcher, name + "-compact", self.a.readers, dict(COMPACTOR_ENV, **self.overrides),
                       "compactor", dict({"src_dir": origin, "dst_dir": compacted}, **COMPACTOR_COMPAT_FLAGS, **ip,
                                         **self.store_flags),
                       self.work, self.hosts(name + "-compact", None))
        got = with_cpu(results(job, {"mapreduce": self.a.ranks * self.a.n}), jobs, name + "-compact", None)
        return {"compaction": got["mapreduce"]}

    def deltafs_read(self, jobs, name, compacted):
        with self.servers(jobs, name + "-svr", self.a.readers, {},
                          dict({"use_existing_fs": 1, "db": compacted}, **SERVER_FLAGS)):
            r = self.client(jobs, name + "-read", {}, {"use_existing_fs": 1, "share_dir": 1, "n": self.a.n,
                                                       "write_phases": 0, "read_phases": 1,
                                                       "info_svr_uri": self.uri, "skip_fs_checks": 0}, ["fstats"],
                            name + "-svr")
        return {"lstat": r["fstats"]}

    def prepare(self, run):
        """The guide's `mkdir -p /tmp/deltafs/runN; rm -rf /tmp/deltafs/runN/*`."""
        root = os.path.join(self.work, self.key, run)
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        return root

    def run(self, jobs, run, prefix):
        """One of the guide's runs ("run1", "run2", "run3": write, compaction, read) in a fresh
        folder: ({"<run> <phase>": result}, {"<run> <job>": its ranks' peak memory})."""
        root = self.prepare(run)
        name = f"{prefix}{self.key}-{run}"
        if run in ("run1", "run2"):
            r = self.indexfs(jobs, name, root, bulk=run == "run2")
            got = {f"{run} {'bulk insert' if run == 'run2' else 'insert'}": r["insert"], f"{run} lstat": r["lstat"]}
        else:
            origin, compacted = f"{root}/origin", f"{root}/compact"
            got = {"run3 DeltaFS insert": self.deltafs_write(jobs, name, origin)["insert"],
                   "run3 compaction": self.deltafs_compact(jobs, name, origin, compacted)["compaction"],
                   "run3 lstat": self.deltafs_read(jobs, name, compacted)["lstat"]}
        if not self.a.keep_stores:
            shutil.rmtree(root, ignore_errors=True)
        jobs_of_run = {"run1": ["svr", "cli"], "run2": ["svr", "cli"], "run3": ["write", "compact", "svr", "read"]}
        memory = {f"{run} {JOB_LABELS[j]}": jobs.peak_kb.get(f"{name}-{j}", {"resident": 0, "private": 0})
                  for j in jobs_of_run[run]}
        return got, memory
