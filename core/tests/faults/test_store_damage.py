# Damaged stores: bytes changed in the middle of a write-ahead log, a damaged table block,
# a truncated MANIFEST, a damaged origin store under the compactor. Each must be reported
# with the damaged file's name, never served as if nothing happened, never miscounted and
# never taken for an empty store (core/doc/failures.md).
import glob
import os
import unittest

import harness
from harness import flags


def damage(path, offset_fraction=0.5, length=64):
    """Overwrites `length` bytes in the middle of the file with bytes it cannot hold by chance."""
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.seek(int(size * offset_fraction))
        f.write(bytes((i * 37 + 11) % 256 for i in range(length)))


def only(pattern):
    paths = glob.glob(pattern)
    assert len(paths) == 1, (pattern, paths)
    return paths[0]


class StoreDamage(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)

    def written_store(self, n, stop):
        """A one-rank server store holding n entries; stopped cleanly (tables) or killed (log only)."""
        db = self.s.path("db")
        srv = self.s.start_servers("svr", 1, db)
        r = self.s.client("insert", 1, flags(n=n, read_phases=0, info_svr_uri=srv.uri))
        self.assertEqual(r.rc, 0, r)
        if stop:
            self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())
        else:
            harness.wait_until(lambda: os.path.getsize(only(db + "/r0/*.log")) > 0, 10, "the log to be written")
            srv.job.kill()
            srv.job.wait_gone()
        return db

    def start_read_only(self, db, name="reopen"):
        return self.s.start_servers(name, 1, db, flags(use_existing_fs=1))

    def test_damaged_log_is_refused_with_its_name(self):
        db = self.written_store(30000, stop=False)
        log = only(db + "/r0/*.log")
        damage(log)
        with self.assertRaises(AssertionError) as failed:
            self.start_read_only(db)
        message = str(failed.exception)
        self.assertIn("Corruption", message)
        self.assertIn(os.path.basename(log), message)

    def test_damaged_table_is_reported_on_lookup_and_count(self):
        db = self.written_store(30000, stop=True)
        table = max(glob.glob(db + "/r0/*.sst"), key=os.path.getsize)
        damage(table, 0.3)
        ro = self.start_read_only(db)
        read = self.s.client("read", 1, flags(n=30000, write_phases=0, read_phases=1, info_svr_uri=ro.uri))
        self.assertNotEqual(read.rc, 0, read)
        self.assertGreater(read.docs[-1]["errors"]["total"], 0, read)
        self.assertIn("cannot count its entries", read.err)
        self.assertIn("Corruption", ro.job.stderr())
        self.assertIn(os.path.basename(table), ro.job.stderr())
        self.assertEqual(self.s.stop_servers(ro), 0, ro.job.stderr())

    def test_truncated_manifest_is_not_an_empty_store(self):
        db = self.written_store(2000, stop=True)
        manifest = only(db + "/r0/MANIFEST-*")
        with open(manifest, "r+b") as f:
            f.truncate(os.path.getsize(manifest) // 3)
        with self.assertRaises(AssertionError) as failed:
            self.start_read_only(db)
        message = str(failed.exception)
        self.assertNotIn("is empty", message)
        self.assertTrue("damaged" in message or "Corruption" in message, message)

    def test_damaged_origin_store_stops_the_compaction_with_its_name(self):
        src, dst = self.s.path("origin"), self.s.path("compact")
        r = self.s.client("write", 1, flags(n=30000, read_phases=0, fs_use_local=1, db=src))
        self.assertEqual(r.rc, 0, r)
        table = max(glob.glob(src + "/r0/*.sst"), key=os.path.getsize)
        damage(table, 0.3)
        c = self.s.compactor("compact", 1, flags(src_dir=src, dst_dir=dst))
        self.assertNotEqual(c.rc, 0, c)
        self.assertIn("Corruption", c.err)
        self.assertIn(os.path.basename(table), c.err)


if __name__ == "__main__":
    unittest.main()
