# CPU placement (core/src/util/cpu_placement.h): server ranks pin their
# shared-memory loops, and client ranks pin themselves, to the host's allowed CPUs in turn;
# --cpu_affinity=0 pins nothing; a narrower affinity mask is respected. (That each channel
# is then served on its client's CPU is tested in unit/shm_channel_test.cc.)
import os
import time
import unittest

import harness
from harness import flags

LOOPS = 2


def allowed_cpus():
    return sorted(os.sched_getaffinity(0))


def rank_of(pid):
    with open("/proc/%d/environ" % pid, "rb") as f:
        env = dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
    return int(env[b"PMI_RANK"])


def pinned_threads(pid):
    """Sorted CPUs of the process's threads that may run on one CPU only."""
    cpus = []
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
            mask = next(line.split(":", 1)[1].strip() for line in f if line.startswith("Cpus_allowed_list:"))
        if mask.isdigit():
            cpus.append(int(mask))
    return sorted(cpus)


def ranks(job, program):
    """{rank: pid} of the job's processes running `program`."""
    out = {}
    for pid in job.leftovers():
        try:
            with open("/proc/%d/comm" % pid) as f:
                if f.read().strip() == program[:15]:
                    out[rank_of(pid)] = pid
        except (OSError, KeyError, ValueError):
            continue
    return out


class CpuPlacement(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)
        self.cpus = allowed_cpus()

    def server_loops(self, name, np, want, extra=()):
        """{rank: CPUs of its pinned threads} of a running server job (stopped afterwards), once
        they equal `want` or after 10 s."""
        srv = self.s.start_servers(name, np, self.s.path(name), flags(rpc_threads=LOOPS) + list(extra))
        # The loops start just after the ready file: once a client has been served over
        # shared memory, they run (and have pinned themselves).
        r = self.s.client(name + "-cli", 2, flags(share_dir=1, n=100, info_svr_uri=srv.uri))
        self.assertEqual(r.rc, 0, r)
        self.assertEqual({d["transport"] for d in r.docs}, {"shm"})
        found = harness.wait_until(lambda: (lambda r: r if len(r) == np else None)(ranks(srv.job, "deltameta_server")),
                                   30, "the server ranks")
        deadline = time.monotonic() + 10
        while True:
            loops = {rank: pinned_threads(pid) for rank, pid in found.items()}
            if loops == want or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())
        return loops

    def test_server_loops_take_the_cpus_in_turn(self):
        want = {rank: sorted(self.cpus[(rank * LOOPS + i) % len(self.cpus)] for i in range(LOOPS)) for rank in (0, 1)}
        self.assertEqual(self.server_loops("svr", 2, want), want)

    def test_nothing_is_pinned_with_cpu_affinity_off(self):
        if len(self.cpus) < 2:
            self.skipTest("needs two CPUs")
        self.assertEqual(self.server_loops("svr", 2, {0: [], 1: []}, flags(cpu_affinity=0)), {0: [], 1: []})

    def test_a_narrower_mask_is_respected(self):
        # Ranks restricted to one CPU: every thread stays there, and clients are served.
        only = self.cpus[-1]
        srv = self.s.start_servers("svr", 2, self.s.path("svr"), flags(rpc_threads=LOOPS),
                                   wrapper=("taskset", "-c", str(only)))
        r = self.s.client("cli", 2, flags(share_dir=1, n=500, read_phases=1, info_svr_uri=srv.uri))
        self.assertEqual(r.rc, 0, r)
        self.assertEqual({d["transport"] for d in r.docs}, {"shm"})
        for rank, pid in ranks(srv.job, "deltameta_server").items():
            threads = pinned_threads(pid)
            self.assertEqual(set(threads), {only}, "rank %d" % rank)
            self.assertEqual(len(threads), len(os.listdir("/proc/%d/task" % pid)), "rank %d" % rank)
        self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())

    def client_placement(self, name, affinity):
        """{rank: CPUs of its pinned threads} seen while a 4-rank client job ran run 1."""
        srv = self.s.start_servers(name + "-svr", 2, self.s.path(name), flags(rpc_threads=LOOPS))
        job = self.s.start(name, 4, "deltameta_client",
                           flags(share_dir=1, n=20000, read_phases=1, info_svr_uri=srv.uri, cpu_affinity=affinity))
        seen = {}
        while job.running():
            for rank, pid in ranks(job, "deltameta_client").items():
                try:
                    seen[rank] = pinned_threads(pid)
                except OSError:
                    pass
            time.sleep(0.01)
        self.assertEqual(job.wait(60), 0, job.stderr())
        self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())
        self.assertEqual(sorted(seen), [0, 1, 2, 3], "every rank seen while it ran")
        return seen

    def test_client_ranks_take_the_cpus_in_turn(self):
        seen = self.client_placement("cli", 1)
        for rank in range(4):
            self.assertEqual(seen[rank], [self.cpus[rank % len(self.cpus)]], "rank %d" % rank)

    def test_client_ranks_are_not_pinned_with_cpu_affinity_off(self):
        if len(self.cpus) < 2:
            self.skipTest("needs two CPUs")
        self.assertEqual(self.client_placement("cli", 0), {r: [] for r in range(4)})


if __name__ == "__main__":
    unittest.main()
