# The RPC client carries no storage engine: deltameta_client links no RocksDB and becomes
# deltameta_client_store, installed beside it, for --bk=1 and --fs_use_local=1.
import os
import shutil
import subprocess
import unittest

import harness
from harness import flags


def rocksdb_symbols(tool):
    out = subprocess.run(["nm", "-C", os.path.join(harness.BIN, tool)], capture_output=True, text=True, check=True)
    return sum("rocksdb::" in line for line in out.stdout.splitlines())


class LeanClient(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)

    def test_rpc_client_links_no_rocksdb(self):
        self.assertEqual(rocksdb_symbols("deltameta_client"), 0)
        self.assertGreater(rocksdb_symbols("deltameta_client_store"), 1000)

    def test_store_modes_run_in_the_store_client(self):
        r = self.s.client("local", 2, flags(fs_use_local=1, db=self.s.path("origin"), n=300, read_phases=1))
        self.assertEqual(r.rc, 0, r)
        self.assertEqual(harness.result_lines(r.out), {"insert": 600, "fstats": 600}, r)
        self.assertEqual({d["tool"] for d in r.docs}, {"deltameta_client"})
        self.assertEqual({d["parameters"]["mode"] for d in r.docs}, {"local"})

    def test_store_modes_without_the_store_client_fail_in_one_line(self):
        lone = self.s.path("lone")
        os.makedirs(lone)
        shutil.copy2(os.path.join(harness.BIN, "deltameta_client"), lone)
        for mode in ("--fs_use_local=1", "--bk=1"):
            r = subprocess.run([os.path.join(lone, "deltameta_client"), mode, "--db=" + self.s.path("x")],
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(r.returncode, 2, r)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn(os.path.join(lone, "deltameta_client_store"), r.stderr)
            self.assertIn("install it beside deltameta_client", r.stderr)
        self.assertFalse(os.path.exists(self.s.path("x")))


if __name__ == "__main__":
    unittest.main()
