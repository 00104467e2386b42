# Memory bounded by the store settings, not by the number of files (core/doc/measurements.md, "Scale"):
# the bulk-insertion client (table_size), the DeltaFS writer (memtable_size) and the
# compactor (table_size), each run at N_SMALL and at N_LARGE files per rank with settings
# small enough that N_SMALL already fills them (a 1 MiB table_size; a 2 MiB memtable_size,
# the least whose memtable blocks malloc maps apart, so that heap fragments do not blur
# the peak), peak within MARGIN_KIB of each other (the largest VmHWM of their ranks, which
# they report as "peak_resident_kib"); without the bounds the large runs would hold 7 MiB
# or more per rank beyond the small ones. Every lstat that follows finds its file with the
# right attributes, and the namespace holds exactly what was written.
import unittest

import harness
from harness import flags

N_SMALL, N_LARGE, RANKS = 40000, 200000, 2
MARGIN_KIB = 2048
BOUND = {"DELTAFS_Db_table_size": 1 << 20, "DELTAFS_Db_memtable_size": 2 << 20}
SERVER_ENV = {"DELTAFS_Db_disable_compaction": 0, "DELTAFS_Db_compression": 1}
WRITE_ENV = dict(BOUND, DELTAFS_Db_disable_compaction=1, DELTAFS_Db_compression=1)
COMPACT_ENV = dict(BOUND, DELTAFS_Db_disable_write_ahead_logging=1, DELTAFS_Db_compression=1)
TIMEOUT = 120


class BoundedMemory(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)

    def check(self, r, phases, n):
        """Exit 0 and, per phase, every one of RANKS x n operations without an error; the
        job's peak resident KiB."""
        self.assertEqual(r.rc, 0, r)
        self.assertEqual([d["phase"] for d in r.docs], phases, r)
        for d in r.docs:
            self.assertEqual((d["ops"], d["errors"]["total"]), (RANKS * n, 0), d["errors"])
        return max(d["peak_resident_kib"] for d in r.docs)

    def assert_bounded(self, what, peaks):
        grown = peaks[N_LARGE] - peaks[N_SMALL]
        self.assertLessEqual(grown, MARGIN_KIB, "%s: peak %d KiB at %d files per rank, %d KiB at %d" %
                             (what, peaks[N_LARGE], N_LARGE, peaks[N_SMALL], N_SMALL))

    def test_bulk_insertion_client(self):
        peaks = {}
        for n in (N_SMALL, N_LARGE):
            srv = self.s.start_servers("svr%d" % n, RANKS, self.s.path("svr%d" % n), flags(skip_fs_checks=0),
                                       SERVER_ENV)
            r = self.s.client("bulk%d" % n, RANKS,
                              flags(n=n, bk=1, db=self.s.path("cli%d" % n), read_phases=1, verify_total=1,
                                    info_svr_uri=srv.uri), BOUND, timeout=TIMEOUT)
            peaks[n] = self.check(r, ["insert", "lstat"], n)
            self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())
        self.assert_bounded("bulk-insertion client", peaks)

    def test_deltafs_writer_and_compactor(self):
        writer, compactor = {}, {}
        for n in (N_SMALL, N_LARGE):
            origin, compacted = self.s.path("origin%d" % n), self.s.path("compact%d" % n)
            r = self.s.client("write%d" % n, RANKS, flags(n=n, db=origin, fs_use_local=1, read_phases=0,
                                                             skip_fs_checks=1), WRITE_ENV, timeout=TIMEOUT)
            writer[n] = self.check(r, ["insert"], n)
            r = self.s.compactor("compact%d" % n, RANKS, flags(src_dir=origin, dst_dir=compacted), COMPACT_ENV,
                                 timeout=TIMEOUT)
            self.assertEqual(r.rc, 0, r)
            self.assertEqual((r.docs[0]["ops"], r.docs[0]["errors"]["total"]), (RANKS * n, 0), r)
            compactor[n] = r.docs[0]["peak_resident_kib"]
            srv = self.s.start_servers("read%d" % n, RANKS, compacted, flags(use_existing_fs=1))
            r = self.s.client("lstat%d" % n, RANKS, flags(n=n, use_existing_fs=1, write_phases=0, read_phases=1,
                                                             verify_total=1, info_svr_uri=srv.uri), timeout=TIMEOUT)
            self.check(r, ["lstat"], n)
            self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())
        self.assert_bounded("DeltaFS writer", writer)
        self.assert_bounded("compactor", compactor)


if __name__ == "__main__":
    unittest.main()
