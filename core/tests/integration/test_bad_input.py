# Bad input: malformed flags and settings, missing or wrong stores, unreachable and read-only servers.
import glob
import os
import socket
import unittest

import harness
from harness import flags

TOOL_FLAGS = {
    "deltameta_server": ["db", "use_existing_fs", "skip_fs_checks", "ports_per_rank", "rpc_threads", "rpc_ip",
                         "info_port", "ready_file"],
    "deltameta_client": ["n", "share_dir", "random_order", "write_phases", "read_phases", "bk", "db", "fs_use_local",
                         "use_existing_fs", "info_svr_uri", "skip_fs_checks", "rpc_timeout", "verify_total", "json"],
    "deltameta_compactor": ["src_dir", "dst_dir", "overwrite", "batch_kb", "json", "rpc_async_sender_threads",
                            "rpc_worker_threads", "rpc_batch_min", "rpc_batch_max", "rpc_threads", "rpc_timeout"],
}
# (argument, flag the error must name) per tool: a bad value, a bad boolean, a flag without '='.
MALFORMED = {
    "deltameta_server": [("--rpc_threads=many", "--rpc_threads"), ("--use_existing_fs=yes", "--use_existing_fs"),
                         ("--db", "--db")],
    "deltameta_client": [("--n=abc", "--n"), ("--n=0", "--n"), ("--share_dir=yes", "--share_dir"), ("--n", "--n"),
                         ("--bk=yes", "--bk")],  # refused by deltameta_client_store, which --bk other than 0 runs
    "deltameta_compactor": [("--batch_kb=1x", "--batch_kb"), ("--overwrite=yes", "--overwrite"),
                            ("--src_dir", "--src_dir")],
}


class BadInput(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = harness.Session()
        cls.addClassCleanup(cls.s.close)
        cls.origin, cls.compact = cls.s.path("origin"), cls.s.path("compact")
        w = cls.s.client("write", 2, flags(fs_use_local=1, db=cls.origin, n=200))
        c = cls.s.compactor("compact", 2, flags(src_dir=cls.origin, dst_dir=cls.compact))
        if w.rc != 0 or c.rc != 0:
            raise AssertionError("cannot build the test stores:\n%s\n%s" % (w, c))

    def run_tool(self, tool, args, np=2, env=None, timeout=30):
        return self.s.run("bad", np, tool, args, env=env, timeout=timeout, json=False)

    def server(self, args, np=2):
        return self.run_tool("deltameta_server", flags(info_port=0) + args, np)

    def assert_one_line_error(self, r, rc, *needles):
        self.assertEqual(r.rc, rc, r)
        lines = r.err.splitlines()
        self.assertEqual(len(lines), 1, r)
        self.assertIn("error", lines[0])
        for needle in needles:
            self.assertIn(needle, lines[0])

    def test_unknown_flag(self):
        for tool in TOOL_FLAGS:
            with self.subTest(tool=tool):
                self.assert_one_line_error(self.run_tool(tool, ["--no_such_flag=1"]), 2, "--no_such_flag")

    def test_malformed_flag(self):
        for tool, cases in MALFORMED.items():
            for arg, flag in cases:
                with self.subTest(tool=tool, arg=arg):
                    self.assert_one_line_error(self.run_tool(tool, [arg]), 2, flag)

    def test_help(self):
        for tool, names in TOOL_FLAGS.items():
            with self.subTest(tool=tool):
                r = self.run_tool(tool, ["--help"])
                self.assertEqual(r.rc, 0, r)
                self.assertEqual(r.out.count("Usage: " + tool), 1, r)
                for name in names:
                    self.assertRegex(r.out, r"\n  --%s[= ]" % name)

    def test_conflicting_client_flags(self):
        for args, needle in [(flags(write_phases=0, read_phases=0), "nothing to do"),
                             (flags(bk=1, fs_use_local=1, db=self.s.path("x")), "--bk=1 and --fs_use_local=1")]:
            with self.subTest(args=args):
                self.assert_one_line_error(self.run_tool("deltameta_client", args), 2, needle)

    def test_a_huge_n_is_not_refused_for_memory_it_does_not_need(self):
        # What the DeltaFS writer holds does not grow with --n: its memtable's index is
        # reserved for what one memtable can hold, not for --n entries (--n=1e11 once ended
        # in an uncaught std::bad_alloc, reserving 800 GB). So this --n is no bad input: the
        # job writes its first tables in tens of MiB, and would go on for days.
        db = self.s.path("huge")
        job = self.s.start("huge-n", 1, "deltameta_client", flags(n=100000000000, fs_use_local=1, db=db))

        def first_table():
            if not job.running():
                raise AssertionError("the job exited with %s: %s" % (job.proc.returncode, job.stderr()))
            return glob.glob(os.path.join(db, "r0", "*.sst"))

        harness.wait_until(first_table, 60, "the write phase's first table")
        (pid,) = job.rank_threads("deltameta_client_store")
        with open("/proc/%d/status" % pid) as f:
            peak_kib = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
        self.assertLess(peak_kib, 256 << 10, "peak resident memory %d KiB" % peak_kib)
        self.assertEqual(job.stderr(), "")
        job.kill()

    def test_bad_store_setting(self):
        closed = "tcp://127.0.0.1:%d" % harness.refused_port(self)
        args = {"deltameta_server": flags(db=self.s.path("never"), info_port=0),
                "deltameta_client": flags(info_svr_uri=closed, rpc_timeout=1),
                "deltameta_compactor": flags(src_dir=self.origin, dst_dir=self.s.path("never"))}
        for env, needle in [({"DELTAFS_Db_no_such_setting": 1}, "DELTAFS_Db_no_such_setting"),
                            ({"DELTAFS_Db_compression": "yes"}, "DELTAFS_Db_compression")]:
            for tool in TOOL_FLAGS:
                with self.subTest(tool=tool, env=env):
                    r = self.run_tool(tool, args[tool], env=env)
                    self.assertNotEqual(r.rc, 0, r)
                    self.assertIn(needle, r.err)
        self.assertFalse(os.path.exists(self.s.path("never")))

    def test_read_only_server_without_store(self):
        os.makedirs(self.s.path("empty-root"))
        os.makedirs(self.s.path("empty-stores", "r0"))
        os.makedirs(self.s.path("empty-stores", "r1"))
        fresh = self.s.start_servers("fresh", 2, self.s.path("fresh"))
        self.assertEqual(self.s.stop_servers(fresh), 0, fresh.job.stderr())
        for db, needle in [("missing", "no store at %s/r0" % self.s.path("missing")),
                           ("empty-root", "no store at %s/r0" % self.s.path("empty-root")),
                           ("empty-stores", "%s/r0 is not a deltameta store" % self.s.path("empty-stores")),
                           ("fresh", "the store at %s/r0 is empty" % self.s.path("fresh"))]:
            with self.subTest(db=db):
                ready = self.s.path(db + ".ready")
                r = self.server(flags(db=self.s.path(db), use_existing_fs=1, ready_file=ready))
                self.assertNotEqual(r.rc, 0, r)
                self.assertIn(needle, r.err)
                self.assertFalse(os.path.exists(ready))

    def test_read_servers_with_wrong_rank_count(self):
        for np in (1, 3):
            with self.subTest(np=np):
                r = self.server(flags(db=self.compact, use_existing_fs=1), np=np)
                self.assertNotEqual(r.rc, 0, r)
                self.assertIn("holds partition 0 of 2 but this server is rank 0 of %d" % np, r.err)

    def test_server_unwritable_ready_file(self):
        for np in (1, 2):
            with self.subTest(np=np):
                ready = self.s.path("no-such-dir", "ready")
                r = self.run_tool("deltameta_server", flags(db=self.s.path("rf%d" % np), info_port=0, ready_file=ready),
                                  np=np, timeout=15)
                self.assertNotEqual(r.rc, 0, r)
                self.assertIn(ready, r.err)

    def test_server_info_port_taken(self):
        db = self.s.path("busy")
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            r = self.run_tool("deltameta_server", flags(db=db, info_port=port))
        self.assertNotEqual(r.rc, 0, r)
        self.assertIn("127.0.0.1:%d" % port, r.err)
        self.assertIn("--info_port", r.err)
        retry = self.s.start_servers("retry", 2, db)  # as the message advises: same job, another port
        self.assertEqual(self.s.stop_servers(retry), 0, retry.job.stderr())

    def test_local_read_with_wrong_rank_count(self):
        for np in (1, 3):
            with self.subTest(np=np):
                r = self.s.client("local-read", np, flags(fs_use_local=1, use_existing_fs=1, db=self.origin, n=200,
                                                          write_phases=0, read_phases=1))
                self.assertNotEqual(r.rc, 0, r)
                self.assertIn(self.origin, r.err)

    def test_compactor_bad_source(self):
        os.makedirs(self.s.path("not-a-store", "r0"))
        with open(self.s.path("not-a-store", "r0", "data"), "w") as f:
            f.write("x")
        cases = [(flags(dst_dir=self.s.path("d1")), 2, "--src_dir and --dst_dir are required"),
                 (flags(src_dir=self.s.path("missing"), dst_dir=self.s.path("d2")), 1,
                  "source %s does not exist" % self.s.path("missing")),
                 (flags(src_dir=self.s.path("not-a-store"), dst_dir=self.s.path("d3")), 1,
                  "%s/r0 is not a deltameta store" % self.s.path("not-a-store")),
                 (flags(src_dir=self.compact, dst_dir=self.s.path("d4")), 1,
                  "holds partition 0 of 2, expected origin store 0 of 2")]
        for args, rc, needle in cases:
            with self.subTest(args=args):
                self.assert_one_line_error(self.run_tool("deltameta_compactor", args), rc, needle)
        for d in ("d1", "d2", "d3", "d4"):
            self.assertFalse(os.path.exists(self.s.path(d)), d)

    def test_compactor_non_empty_destination(self):
        dst = self.s.path("occupied")
        os.makedirs(dst)
        with open(os.path.join(dst, "precious"), "w") as f:
            f.write("keep me")
        args = flags(src_dir=self.origin, dst_dir=dst)
        refused = self.s.compactor("refused", 2, args)
        self.assertEqual(refused.rc, 1, refused)
        self.assertIn("--overwrite=1", refused.err)
        self.assertEqual(sorted(os.listdir(dst)), ["precious"])

        forced = self.s.compactor("forced", 2, args + flags(overwrite=1))
        self.assertEqual(forced.rc, 0, forced)
        self.assertEqual(harness.result_lines(forced.out), {"mapreduce": 400}, forced)
        self.assertEqual(sorted(os.listdir(dst)), ["r0", "r1"])

    def test_client_unreachable_server(self):
        address = "127.0.0.1:%d" % harness.refused_port(self)
        r = self.s.client("unreachable", 2, flags(info_svr_uri="tcp://" + address, rpc_timeout=2), timeout=30)
        self.assertNotEqual(r.rc, 0, r)
        self.assertLess(r.elapsed, 10, r)
        self.assertIn(address, r.err)

    def test_read_only_server_refuses_creates(self):
        srv = self.s.start_servers("ro", 2, self.compact, flags(use_existing_fs=1))
        r = self.s.client("create", 2, flags(info_svr_uri=srv.uri, n=50, share_dir=0))
        self.assertEqual(r.rc, 1, r)
        self.assertEqual(harness.result_lines(r.out), {"insert": 100}, r)
        self.assertEqual(r.docs[0]["errors"]["failed"], 100, r)
        self.assertIn("100 failed", r.out)
        self.assertIn("100 operations failed verification", r.err)
        stat = harness.encode_stat(7, 0o100644, 1000, 1000, 0, 1, 1)
        for address in harness.server_addresses(srv):
            with harness.connect(address) as c:
                _, _, body = harness.call(c, harness.frame(harness.MSG_CREATE, harness.key_body(1, b"new") + stat))
            self.assertEqual(body[0], harness.STATUS_READ_ONLY, address)
        self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())


if __name__ == "__main__":
    unittest.main()
