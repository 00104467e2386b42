# A full disk under each job kind: an IndexFS server refuses creates once its file system
# has less free space than it keeps for a clean close, exits cleanly and keeps every
# create it acknowledged; the DeltaFS writer, the bulk-insertion client and the compactor
# stop with a one-line "No space left on device" error and a non-zero exit, never an abort
# (core/doc/failures.md). Each case runs on a small tmpfs of its own.
import os
import subprocess
import unittest

import harness
from harness import flags

# Small memtables and tables, so that a few MiB hold several flushes.
SMALL = {"DELTAFS_Db_memtable_size": 1 << 20, "DELTAFS_Db_table_size": 1 << 20}


def mount_tmpfs(path, mib):
    """Mounts a tmpfs of `mib` MiB at `path`; None if it worked, else the reason."""
    os.makedirs(path, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dm" % mib, "tmpfs", path], capture_output=True,
                       text=True)
    return None if r.returncode == 0 else ((r.stderr.strip().splitlines() or ["mount failed"])[0])


class FullDisk(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)

    def small_disk(self, mib):
        path = self.s.path("disk")
        why = mount_tmpfs(path, mib)
        if why:
            self.skipTest("needs to mount a small tmpfs (root or CAP_SYS_ADMIN): %s" % why)
        self.addCleanup(subprocess.run, ["umount", "-l", path])
        return path

    def assert_clean_failure(self, r):
        self.assertNotEqual(r.rc, 0, r)
        self.assertGreater(r.rc, 0, r)  # an exit code, not a signal
        self.assertNotIn("Assertion", r.err)
        self.assertNotIn("BAD TERMINATION", r.out + r.err)
        self.assertIn("No space left on device", r.err)

    def test_server_refuses_creates_and_keeps_what_it_acknowledged(self):
        db = os.path.join(self.small_disk(12), "db")
        srv = self.s.start_servers("svr", 1, db, env=SMALL)
        n = 600000
        r = self.s.client("insert", 1, flags(n=n, read_phases=0, info_svr_uri=srv.uri), timeout=120)
        self.assertNotEqual(r.rc, 0, r)
        failed = r.docs[0]["errors"]["failed"]
        self.assertGreater(failed, 0, r)
        self.assertLess(failed, n, r)
        self.assertIn("creates are refused", srv.job.stderr())
        self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())
        self.assertNotIn("Assertion", srv.job.stderr())
        ro = self.s.start_servers("reopen", 1, db, flags(use_existing_fs=1))
        self.assertEqual(harness.count_entries(harness.server_addresses(ro)), n - failed)
        self.assertEqual(self.s.stop_servers(ro), 0, ro.job.stderr())

    def test_deltafs_writer_stops_with_an_error(self):
        db = os.path.join(self.small_disk(6), "origin")
        r = self.s.client("write", 1, flags(n=1000000, read_phases=0, fs_use_local=1, db=db), env=SMALL, timeout=120)
        self.assert_clean_failure(r)

    def test_bulk_insertion_client_stops_with_an_error(self):
        srv = self.s.start_servers("svr", 1, self.s.path("svr"))
        tables = os.path.join(self.small_disk(2), "cli")
        r = self.s.client("bulk", 1, flags(n=300000, read_phases=0, bk=1, db=tables, info_svr_uri=srv.uri),
                          env=SMALL, timeout=120)
        self.assert_clean_failure(r)
        self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())

    def test_compactor_stops_with_an_error(self):
        src = self.s.path("origin")
        r = self.s.client("write", 1, flags(n=400000, read_phases=0, fs_use_local=1, db=src))
        self.assertEqual(r.rc, 0, r)
        dst = os.path.join(self.small_disk(2), "compact")
        c = self.s.compactor("compact", 1, flags(src_dir=src, dst_dir=dst), timeout=120)
        self.assert_clean_failure(c)


if __name__ == "__main__":
    unittest.main()
