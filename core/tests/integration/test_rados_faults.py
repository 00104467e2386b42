# RADOS runs whose cluster fails under them: a full object store, an OSD killed or stopped
# while a DeltaFS write job runs. Each case fills or breaks a Ceph cluster of its own
# (scripts/ceph-cluster.sh in the test's directory, on its own ports), never ctest's shared
# one: ctest gives this file no CEPH_CONF, and every call here names its cluster's config.
# With the OSD gone the job must end with one error line naming the problem and a non-zero
# exit about one DELTAMETA_RADOS_TIMEOUT after losing it (not after one timeout per call
# still to make, as it once did); with the OSD back within the timeout and its data kept,
# the job must finish and every entry read back. A store that cannot be reached is not
# taken for a missing one.
import os
import signal
import subprocess
import sys
import time
import unittest

import harness
from harness import flags

SCRIPT = os.environ["CEPH_CLUSTER_SCRIPT"]
POOL = "deltameta"
TIMEOUT = 3  # DELTAMETA_RADOS_TIMEOUT of the jobs that lose their OSD for good
# After the first call times out every other one gives up at once; RocksDB then waits 1 s
# after its failed background flush before the store closes.
ERROR_WITHIN = TIMEOUT + 3  # seconds from stopping the OSD to the error line
EXIT_AFTER_ERROR = 2.5      # seconds from the error line to the job's exit
# Both on an idle machine: a busy one stretches them by harness.busy_factor().
NO_ANSWER = "no answer from Ceph in time: is the cluster up and the pool not full?"

# Nothing inherited may point a job or a tool at another cluster.
for var in ("CEPH_CONF", "DELTAMETA_RADOS_CONF", "CEPH_ARGS"):
    os.environ.pop(var, None)


class Cluster:
    """A cluster of the test's own in `directory`, stopped when the test ends."""

    def __init__(self, test, directory, *start_args):
        self.dir, self.test = directory, test
        test.addCleanup(self.script, "stop")
        self.must("start", *start_args)
        self.conf = os.path.join(directory, "ceph.conf")
        self.env = {"DELTAMETA_RADOS_CONF": self.conf, "CEPH_CONF": self.conf}

    def argv(self, command, *args):
        return ["bash", SCRIPT, command, self.dir] + list(args)

    def script(self, *args):
        return subprocess.run(self.argv(*args), capture_output=True, text=True, timeout=180)

    def must(self, *args):
        """scripts/ceph-cluster.sh ARGS on this cluster; the test fails with what it printed unless it exits 0."""
        res = self.script(*args)
        self.test.assertEqual(res.returncode, 0, "ceph-cluster.sh %s: %s%s" % (" ".join(args), res.stdout, res.stderr))
        return res

    def tool(self, name, *args, timeout=60):
        return subprocess.run([name, "-c", self.conf] + list(args), capture_output=True, text=True, timeout=timeout)


class RadosFaults(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)

    def start_writer(self, cluster, n, timeout, settle=1.0):
        """A 2-rank DeltaFS write job on `cluster`, `settle` seconds after it began to open its stores."""
        job = self.s.start("write", 2, "deltameta_client",
                           flags(db="rados://%s/w" % POOL, n=n, read_phases=0, fs_use_local=1),
                           dict(cluster.env, DELTAMETA_RADOS_TIMEOUT=timeout))
        # Rank 0 prints the header just before the ranks open their stores; the creates
        # start a few hundred milliseconds later.
        harness.wait_until(lambda: not job.running() or "-----\n" in job.stdout(), 60, "the job's header")
        time.sleep(settle)
        self.assertTrue(job.running(), job.stderr())
        return job

    def assert_fails_in_time(self, job, stopped):
        """The job's one error line and its exit, timed from `stopped` (time.time() when the OSD began to go)."""
        rc = job.wait(120)
        exit_at = time.time() - stopped
        error_at = os.stat(job.err_path).st_mtime - stopped  # when the error line was written
        job.wait_gone()
        err = job.stderr()
        print("%s: error line after %.1f s, exit after %.1f s" % (self.id(), error_at, exit_at), file=sys.stderr)
        self.assertNotEqual(rc, 0, err)
        errors = [line for line in err.splitlines() if line.startswith("deltameta_client: error: ")]
        self.assertEqual(len(errors), 1, err)
        self.assertIn(NO_ANSWER, errors[0])
        self.assertEqual(err, errors[0] + "\n", "more than the error line on stderr")
        slower = harness.busy_factor()
        self.assertLess(exit_at - error_at, EXIT_AFTER_ERROR * slower, "error after %.1f s, exit after %.1f s "
                        "(bound x%.1f for the machine's load): %s" % (error_at, exit_at, slower, err))
        self.assertLess(error_at, ERROR_WITHIN * slower,
                        "error after %.1f s (bound x%.1f for the machine's load): %s" % (error_at, slower, err))

    def test_a_full_object_store_fails_clearly(self):
        cluster = Cluster(self, self.s.path("small-cluster"), "--memory-mb", "32")
        blob = self.s.path("blob")
        with open(blob, "wb") as f:
            f.write(os.urandom(8 << 20))
        # The memory store admits writes until the OSD next samples its usage (every few
        # seconds), then drops them.
        for i in range(30):
            put = cluster.tool("rados", "-p", POOL, "put", "fill-%d" % i, blob, "--rados-osd-op-timeout", "5")
            if put.returncode != 0:
                break
            time.sleep(1)
        self.assertNotEqual(put.returncode, 0, "the 32 MiB store never filled up")
        r = self.s.client("full", 2, flags(db="rados://%s/full" % POOL, n=100, read_phases=0, fs_use_local=1),
                          dict(cluster.env, DELTAMETA_RADOS_TIMEOUT=5))
        self.assertNotEqual(r.rc, 0, r)
        self.assertIn(NO_ANSWER, r.err, r)
        self.assertLess(r.elapsed, 30, r)

    def test_osd_killed_for_good(self):
        cluster = Cluster(self, self.s.path("cluster"))
        job = self.start_writer(cluster, 50_000_000, TIMEOUT)
        stopped = time.time()
        cluster.must("osd-stop", "--kill")
        self.assert_fails_in_time(job, stopped)
        # Its stores cannot be reached now: removing them fails in one line, never passes
        # as "nothing to remove" (an unanswered lookup is not a missing store).
        rm = subprocess.run([os.path.join(harness.BIN, "deltameta_storage"), "rm", "rados://%s/w" % POOL],
                            capture_output=True, text=True, timeout=120,
                            env=dict(os.environ, **cluster.env, DELTAMETA_RADOS_TIMEOUT=str(TIMEOUT)))
        self.assertEqual((rm.returncode, rm.stdout), (1, ""), rm)
        self.assertEqual(len(rm.stderr.splitlines()), 1, rm.stderr)
        self.assertIn(NO_ANSWER, rm.stderr)

    def test_osd_stopped_and_restarted_without_its_data(self):
        # A graceful stop, as a kill, loses the in-memory OSD's data (Ceph's fast shutdown
        # does not save it): the restarted OSD has none of the pool's placement groups, the
        # job's calls go unanswered and it fails as if the OSD were gone for good.
        cluster = Cluster(self, self.s.path("cluster"))
        job = self.start_writer(cluster, 50_000_000, TIMEOUT)
        stopped = time.time()
        cluster.must("osd-stop")
        restart = subprocess.Popen(cluster.argv("osd-start"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assert_fails_in_time(job, stopped)
        _, err = restart.communicate(timeout=120)
        self.assertEqual(restart.returncode, 0, err)

    def test_osd_stopped_and_restarted_with_its_data_within_the_timeout(self):
        # With the data saved on a graceful stop, librados resends the job's calls to the
        # restarted OSD: the job finishes as if nothing happened, every entry intact.
        cluster = Cluster(self, self.s.path("cluster"))
        keep = cluster.tool("ceph", "--connect-timeout", "20", "config", "set", "osd", "osd_fast_shutdown", "false")
        self.assertEqual(keep.returncode, 0, keep.stderr)
        n = 300_000
        job = self.start_writer(cluster, n, 30, settle=0.1)
        # The ranks are held while the OSD stops, so that it goes mid-run however fast they are.
        ranks = list(job.rank_threads("deltameta_client_store"))
        self.assertEqual(len(ranks), 2, ranks)
        for pid in ranks:
            os.kill(pid, signal.SIGSTOP)
        try:
            cluster.must("osd-stop")
        finally:
            for pid in ranks:
                os.kill(pid, signal.SIGCONT)
        time.sleep(1)
        self.assertTrue(job.running(), "the job ended while its OSD was down: %s" % job.stderr())
        cluster.must("osd-start")
        rc = job.wait(120)
        job.wait_gone()
        self.assertEqual((rc, job.stderr()), (0, ""))
        self.assertEqual(harness.result_lines(job.stdout()), {"insert": 2 * n})
        read = self.s.client("read", 2, flags(db="rados://%s/w" % POOL, n=n, write_phases=0, read_phases=1,
                                              fs_use_local=1, use_existing_fs=1), cluster.env, timeout=120)
        self.assertEqual(read.rc, 0, read)
        self.assertEqual(harness.result_lines(read.out), {"fstats": 2 * n}, read)


if __name__ == "__main__":
    unittest.main()
