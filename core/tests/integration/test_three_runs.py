# The seed guide's three runs (IndexFS, IndexFS bulk insertion, DeltaFS write/compact/read) at small scale.
import os
import unittest

import harness
from harness import flags

N, CLIENTS, SERVERS = 2000, 4, 2
TOTAL = N * CLIENTS
SERVER_ENV = {"DELTAFS_Db_write_ahead_log_buffer": 65536, "DELTAFS_Db_disable_write_ahead_logging": 0,
              "DELTAFS_Db_disable_compaction": 0, "DELTAFS_Db_l0_soft_limit": 8, "DELTAFS_Db_l0_hard_limit": 12,
              "DELTAFS_Db_compression": 1}
SERVER_FLAGS = flags(skip_fs_checks=0, ports_per_rank=1, rpc_threads=2)
WRITE_ENV = {"DELTAFS_Db_write_ahead_log_buffer": 65536, "DELTAFS_Db_disable_write_ahead_logging": 0,
             "DELTAFS_Db_disable_compaction": 1, "DELTAFS_Db_compression": 1}
COMPACT_ENV = {"DELTAFS_Db_disable_write_ahead_logging": 1, "DELTAFS_Db_compression": 1}
QUANTILES = ["min", "q1", "median", "q3", "q90", "q99", "max"]


class ThreeRuns(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)

    def store(self, *parts):
        """Where the runs keep their stores and tables (a storage URI)."""
        return self.s.path(*parts)

    def check_client(self, r, phases, with_servers):
        """Exit 0, one guide line and one clean JSON document of TOTAL ops per phase."""
        self.assertEqual(r.rc, 0, r)
        self.assertEqual(harness.result_lines(r.out), {p: TOTAL for p in phases}, r)
        self.assertEqual([d["phase"] for d in r.docs], [{"fstats": "lstat"}.get(p, p) for p in phases])
        for d in r.docs:
            self.assertEqual((d["tool"], d["ranks"], d["ops"]), ("deltameta_client", CLIENTS, TOTAL))
            self.assertEqual(d["errors"]["total"], 0, d["errors"])
            latency = [d["latency_us"][q] for q in QUANTILES]
            self.assertEqual(latency, sorted(latency), d["latency_us"])
            self.assertGreater(latency[0], 0)
            if with_servers:
                self.assertGreater(d["cpu_s"]["servers"], 0)
            else:
                self.assertEqual(d["servers"], 0)

    def stop(self, servers):
        self.assertEqual(self.s.stop_servers(servers), 0, servers.job.stderr())
        self.assertFalse(os.path.exists(servers.ready_file), "the ready file outlived the servers")

    def indexfs(self, run, share_dir, extra=(), transport="shm"):
        srv = self.s.start_servers("svr", SERVERS, self.store(run, "svr"), SERVER_FLAGS, SERVER_ENV)
        args = flags(share_dir=share_dir, n=N) + list(extra)
        args += flags(read_phases=1, info_svr_uri=srv.uri, skip_fs_checks=0)
        r = self.s.client("cli", CLIENTS, args)
        self.check_client(r, ["insert", "fstats"], True)
        self.assertEqual({d["transport"] for d in r.docs}, {transport})
        self.stop(srv)

    def test_run1_indexfs(self):
        self.indexfs("run1", 1)

    def test_run1_indexfs_over_tcp(self):
        self.indexfs("run1", 1, flags(rpc_transport="tcp"), transport="tcp")

    def test_run1_indexfs_over_unix_sockets(self):
        self.indexfs("run1", 1, flags(rpc_transport="unix"), transport="unix")

    def test_run1_indexfs_private_dirs(self):
        self.indexfs("run1", 0)

    def test_run2_bulk_insertion(self):
        self.indexfs("run2", 1, flags(bk=1, db=self.store("run2", "cli")))

    def test_run3_deltafs(self):
        origin, compact = self.store("run3", "origin"), self.store("run3", "compact")
        write = self.s.client("write", CLIENTS, flags(db=origin, share_dir=1, n=N, read_phases=0, skip_fs_checks=1,
                                                      fs_use_local=1), env=WRITE_ENV)
        self.check_client(write, ["insert"], False)

        c = self.s.compactor("compact", 4, flags(src_dir=origin, dst_dir=compact, rpc_async_sender_threads=16,
                                                 rpc_worker_threads=0, rpc_batch_min=4, rpc_batch_max=8,
                                                 rpc_threads=2), env=COMPACT_ENV)
        self.assertEqual(c.rc, 0, c)
        self.assertEqual(harness.result_lines(c.out), {"mapreduce": TOTAL}, c)
        self.assertEqual([(d["phase"], d["ops"], d["errors"]["total"]) for d in c.docs], [("compaction", TOTAL, 0)])

        srv = self.s.start_servers("read-svr", 4, compact, flags(use_existing_fs=1) + SERVER_FLAGS)
        # Read-only stores start no RocksDB flush or compaction threads.
        threads = srv.job.rank_threads("deltameta_server")
        self.assertEqual(len(threads), 4, threads)
        for names in threads.values():
            self.assertFalse([t for t in names if t.startswith("rocksdb")], threads)
        read = flags(use_existing_fs=1, share_dir=1, write_phases=0, read_phases=1, info_svr_uri=srv.uri,
                     skip_fs_checks=0)
        self.check_client(self.s.client("read", CLIENTS, flags(n=N) + read), ["fstats"], True)

        more = self.s.client("read-more", CLIENTS, flags(n=N + 500) + read)
        self.assertEqual(more.rc, 1, more)
        self.assertEqual(more.docs[0]["errors"]["missing"], CLIENTS * 500, more)
        self.assertIn(" %d missing" % (CLIENTS * 500), more.out)
        self.assertIn("the namespace holds %d entries, the job expected %d" % (TOTAL, CLIENTS * (N + 500)), more.err)

        fewer = self.s.client("read-fewer", CLIENTS, flags(n=N - 500) + read)
        self.assertEqual(fewer.rc, 1, fewer)
        self.assertEqual(fewer.docs[0]["errors"]["missing"], 0, fewer)
        self.assertIn("the namespace holds %d entries, the job expected %d" % (TOTAL, CLIENTS * (N - 500)), fewer.err)
        self.stop(srv)


if __name__ == "__main__":
    unittest.main()
