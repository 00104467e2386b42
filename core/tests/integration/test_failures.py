# Failures: a client or server job killed (or frozen) mid-run, and read-only jobs leaving their stores untouched.
import os
import signal
import time
import unittest

import harness
import mpijobs
from harness import flags

RPC_TIMEOUT = 3
MARGIN = 10  # seconds allowed beyond --rpc_timeout for MPI_Abort to take the job down


class Failures(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)

    def start_big_client(self, servers):
        """A client job far too large to finish; returns once its inserts reach the servers."""
        args = flags(n=200000, info_svr_uri=servers.uri, rpc_timeout=RPC_TIMEOUT, json=self.s.path("big.json"))
        job = self.s.start("big-client", 4, "deltameta_client", args)
        addresses = harness.server_addresses(servers)

        def inserting():
            self.assertTrue(job.running(), job.stderr())
            return harness.count_entries(addresses) > 0

        harness.wait_until(inserting, 30, "the client's inserts to reach the servers", interval=0.05)
        return job, addresses

    def check_client(self, r, phases, ops):
        self.assertEqual(r.rc, 0, r)
        self.assertEqual(harness.result_lines(r.out), {p: ops for p in phases}, r)
        self.assertTrue(all(d["errors"]["total"] == 0 for d in r.docs), r.docs)

    def test_client_killed_mid_run(self):
        db = self.s.path("db")
        srv = self.s.start_servers("svr", 2, db)
        job, addresses = self.start_big_client(srv)
        time.sleep(0.5)  # half a second into the insert phase
        self.assertTrue(job.running(), job.stderr())
        job.kill()
        job.wait_gone()
        self.assertTrue(srv.job.running(), srv.job.stderr())

        small = flags(share_dir=0, n=500, read_phases=1, verify_total=0)
        self.check_client(self.s.client("after", 4, small + flags(info_svr_uri=srv.uri)), ["insert", "fstats"], 2000)
        held = harness.count_entries(addresses)
        self.assertGreater(held, 2000)
        self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())

        ro = self.s.start_servers("reopen", 2, db, flags(use_existing_fs=1))
        self.assertEqual(harness.count_entries(harness.server_addresses(ro)), held)
        reread = self.s.client("reread", 4, flags(write_phases=0, info_svr_uri=ro.uri) + small)
        self.check_client(reread, ["fstats"], 2000)
        self.assertEqual(self.s.stop_servers(ro), 0, ro.job.stderr())

    def assert_client_fails_fast(self, job, addresses, t0, needle):
        rc = job.wait(RPC_TIMEOUT + 3 * MARGIN)
        elapsed = time.monotonic() - t0
        job.wait_gone()
        err = job.stderr()
        self.assertNotEqual(rc, 0, err)
        self.assertLess(elapsed, RPC_TIMEOUT + MARGIN, err)
        self.assertTrue(any(a in err for a in addresses),
                        "rc=%s but the client's stderr names no server %s: %r" % (rc, addresses, err))
        self.assertIn(needle, err)

    def test_server_killed_mid_run(self):
        srv = self.s.start_servers("svr", 2, self.s.path("db"))
        job, addresses = self.start_big_client(srv)
        t0 = time.monotonic()
        srv.job.kill()
        self.assert_client_fails_fast(job, addresses, t0, "deltameta_client: error: ")

    def test_servers_stopped_mid_run(self):
        db = self.s.path("db")
        srv = self.s.start_servers("svr", 2, db)
        job, addresses = self.start_big_client(srv)
        t0 = time.monotonic()
        self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())
        self.assert_client_fails_fast(job, addresses, t0, "deltameta_client: error: ")
        ro = self.s.start_servers("reopen", 2, db, flags(use_existing_fs=1))
        self.assertGreater(harness.count_entries(harness.server_addresses(ro)), 0)
        self.assertEqual(self.s.stop_servers(ro), 0, ro.job.stderr())

    def test_server_frozen_mid_run(self):
        srv = self.s.start_servers("svr", 2, self.s.path("db"))
        job, addresses = self.start_big_client(srv)
        ranks = [p for p in mpijobs.descendants(srv.job.proc.pid)
                 if os.readlink("/proc/%d/exe" % p).endswith("/deltameta_server")]
        self.assertEqual(len(ranks), 2)
        t0 = time.monotonic()
        for pid in ranks:
            os.kill(pid, signal.SIGSTOP)
        self.assert_client_fails_fast(job, addresses, t0, "within %d s" % RPC_TIMEOUT)

    def test_read_only_jobs_leave_stores_untouched(self):
        origin, compact = self.s.path("origin"), self.s.path("compact")
        write = self.s.client("write", 4, flags(fs_use_local=1, db=origin, n=2000))
        self.assertEqual(write.rc, 0, write)
        origin_files = harness.snapshot(origin)
        c = self.s.compactor("compact", 4, flags(src_dir=origin, dst_dir=compact))
        self.assertEqual(c.rc, 0, c)
        local = self.s.client("local-read", 4, flags(fs_use_local=1, use_existing_fs=1, db=origin, n=2000,
                                                     write_phases=0, read_phases=1))
        self.check_client(local, ["fstats"], 8000)
        self.assertEqual(harness.snapshot(origin), origin_files)

        compact_files = harness.snapshot(compact)
        srv = self.s.start_servers("ro", 4, compact, flags(use_existing_fs=1))
        read = self.s.client("read", 4, flags(use_existing_fs=1, write_phases=0, read_phases=1, n=2000,
                                              info_svr_uri=srv.uri))
        self.check_client(read, ["fstats"], 8000)
        refused = self.s.client("create", 4, flags(n=10, share_dir=0, info_svr_uri=srv.uri))
        self.assertEqual(refused.rc, 1, refused)
        self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())
        self.assertEqual(harness.snapshot(compact), compact_files)


if __name__ == "__main__":
    unittest.main()
