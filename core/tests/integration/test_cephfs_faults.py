# An MDS killed during a CephFS run. libcephfs waits for the MDS without a timeout once it
# has mounted, so the tools bound every request by --rpc_timeout (core/src/cephfs/
# cephfs_watchdog.h). On a cluster of the test's own (scripts/ceph-cluster.sh start
# --cephfs, never ctest's shared one: the MDS is killed), a deltameta_client --cephfs=1 job
# and a deltameta_mdworkbench --interface=cephfs job each lose the MDS mid-phase: the job
# must end within the bound (plus the watchdog's look, at most a second) with a non-zero
# exit, one error line per rank naming the request, the bound and the fix, and no process
# of the job left. The workflow's cephfs run (core/bench/runs.py cephfs, the client's
# default bound of 30 s) likewise ends in one line naming the MDS.
import os
import signal
import subprocess
import sys
import time
import unittest

import harness
from harness import flags
from test_cephfs_runs import RUNS
from test_rados_faults import Cluster

BOUND = 5  # --rpc_timeout of the jobs that lose their MDS
# The bound, the watchdog's look (a second at most), mpiexec's tear-down, on a busy machine.
EXIT_WITHIN = BOUND + 8
RANKS = 2
ERROR_TAIL = ("had no answer within %d s (--rpc_timeout): the MDS is down or unreachable: check it with `ceph fs "
              "status` (the run's CEPH_CONF) and start it again, or raise --rpc_timeout if it is only slow" % BOUND)


def clients(tag):
    """The live deltameta_client processes carrying `tag`."""
    found = []
    for pid in harness.tagged_pids(tag):
        try:
            if os.path.basename(os.readlink("/proc/%d/exe" % pid)) == "deltameta_client":
                found.append(pid)
        except OSError:
            continue
    return found


class CephfsFaults(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)
        self.cluster = Cluster(self, self.s.path("cluster"), "--cephfs")

    def lose_the_mds_during(self, name, tool, args, started):
        """Starts `tool` on this test's cluster, kills the MDS once `started(stdout)` holds
        and the job is a second into its phase, and checks how the job ends; its stderr."""
        job = self.s.start(name, RANKS, tool, args + flags(rpc_timeout=BOUND), self.cluster.env)
        harness.wait_until(lambda: not job.running() or started(job.stdout()), 60, "the job's phase to start")
        time.sleep(1)
        self.assertTrue(job.running(), job.stderr())
        killed = self.kill_the_mds()
        rc = job.wait(120)
        exit_at = time.time() - killed
        job.wait_gone()
        err = job.stderr()
        print("%s: exit %.1f s after the MDS was killed" % (self.id(), exit_at), file=sys.stderr)
        self.assertNotEqual(rc, 0, err)
        errors = [line for line in err.splitlines() if line.startswith(tool + ": error: CephFS ")]
        self.assertTrue(1 <= len(errors) <= RANKS, err)
        for line in errors:
            self.assertTrue(line.endswith(ERROR_TAIL), line)
        self.assertLess(exit_at, EXIT_WITHIN, err)
        self.assertGreater(exit_at, BOUND - 1, "ended before the bound: %s" % err)
        return err

    def kill_the_mds(self):
        with open(os.path.join(self.cluster.dir, "mds.pid")) as f:
            os.kill(int(f.read()), signal.SIGKILL)
        return time.time()

    def test_mds_killed_during_the_workflows_cephfs_run(self):
        tag = self.s.tag + ".runs"
        cmd = [sys.executable, RUNS, "cephfs", "--bin", harness.BIN, "--mpiexec", harness.MPIEXEC, "--work",
               self.s.path("work"), "--out", self.s.path("runs.jsonl"), "--log", self.s.path("runs.log"), "--ranks",
               str(RANKS), "--n", "10000000", "--timeout", "120", "--ceph-conf", self.cluster.conf]
        runs = subprocess.Popen(cmd, env=dict(os.environ, **{harness.TAG_VAR: tag}), stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: runs.poll() is None and runs.kill())
        # mpiexec's output reaches the run's log only when it ends: the ranks' processes tell
        # that the job runs; a few seconds later they are creating (or still mounting).
        harness.wait_until(lambda: runs.poll() is not None or len(clients(tag)) == RANKS, 60, "the run's clients")
        time.sleep(5)
        self.assertIsNone(runs.poll(), "the run ended before the MDS was killed")
        killed = self.kill_the_mds()
        err = runs.communicate(timeout=180)[1]
        exit_at = time.time() - killed
        harness.wait_until(lambda: not harness.tagged_pids(tag), 10, "every process of runs.py to exit")
        print("%s: exit %.1f s after the MDS was killed" % (self.id(), exit_at), file=sys.stderr)
        self.assertEqual(runs.returncode, 1, err)
        [line] = err.strip().splitlines()
        # mpiexec's code: 1 from the rank that failed, or 9 where Hydra's SIGKILL of the other
        # ranks was what it reported (seen once in a run of the whole suite).
        self.assertRegex(line, r"^runs: cephfs: client exited with code (1|9): deltameta_client: error: ")
        self.assertIn("MDS", line)
        self.assertLess(exit_at, 30 + 8, err)  # the client's default --rpc_timeout, 30 s

    def test_mds_killed_during_a_client_run(self):
        self.lose_the_mds_during("client", "deltameta_client",
                                 flags(cephfs=1, cephfs_dir="/killed", n=10_000_000, read_phases=0),
                                 lambda out: "-----\n" in out)

    def test_mds_killed_during_an_mdworkbench_run(self):
        self.lose_the_mds_during("mdworkbench", "deltameta_mdworkbench",
                                 flags(interface="cephfs", root="/killed", **{"precreate-per-set": 1_000_000}),
                                 lambda out: "MD-Workbench pattern:" in out)


if __name__ == "__main__":
    unittest.main()
