# deltameta_mdworkbench (MD-Workbench's pattern, core/src/mdworkbench/) at a tiny scale:
# core/bench/runs.py mdworkbench on the posix and indexfs interfaces (its documents, their
# counts, zero verification errors, deleted objects gone, no process left), the IndexFS
# servers' entries after each phase and their inline limit, and the posix interface's
# verification of faults put in between its phases (changed bytes, a removed file, a
# changed mode). The deltafs interface is test_mdworkbench_deltafs.py.
import os
import sys
import time
import unittest

import harness
from harness import flags

RUNS = os.path.join(os.path.dirname(os.path.abspath(harness.__file__)), "..", "..", "bench", "runs.py")
RANKS, SERVERS = 3, 2
# MD-Workbench's -D, -P, -I, -R, -O, -S
DSETS, P, PER_ITER, R, OFFSET, SIZE = 2, 40, 10, 2, 1, 3901
PRECREATED = RANKS * DSETS * P
BENCHMARKED = RANKS * R * DSETS * PER_ITER
QUANTILES = ["min", "q1", "median", "q3", "q90", "q99", "max"]
VERIFICATION = ["failed", "missing", "mismatched", "wrong_bytes", "deleted_still_found"]
SPACE = {"dset-count": DSETS, "precreate-per-set": P, "obj-per-proc": PER_ITER, "object-size": SIZE, "iterations": R,
         "offset": OFFSET}


def object_path(root, owner, dset, index):
    """Where the posix interface keeps an object (core/src/mdworkbench/objects.h)."""
    return os.path.join(root, "r%d.d%d" % (owner, dset), "o%x.%x.%x" % (owner, dset, index))


class MdwbBase(unittest.TestCase):
    """Sessions, runs.py and the tool at this file's scale; the tests are in the subclasses."""

    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)

    def runs(self, interface, *extra):
        """runs.py mdworkbench: (exit code, stderr, documents, work directory); no process may
        be left once it returned."""
        work, out = self.s.path(interface), self.s.path(interface + ".jsonl")
        cmd = [sys.executable, RUNS, "mdworkbench", "--interface", interface, "--bin", harness.BIN, "--mpiexec",
               harness.MPIEXEC, "--work", work, "--out", out, "--log", self.s.path(interface + ".log"), "--ranks",
               str(RANKS), "--servers", str(SERVERS), "--data-sets", str(DSETS), "--precreate", str(P), "--objects",
               str(PER_ITER), "--object-size", str(SIZE), "--iterations", str(R), "--offset", str(OFFSET)] + list(extra)
        return (*self.s.run_script("runs-" + interface, cmd, out), work)

    def check_phase(self, doc, phase, interface, objects, ops):
        """A clean phase document of `objects` objects and `ops` ({op: count})."""
        self.assertEqual((doc["schema"], doc["tool"], doc["phase"]),
                         ("deltameta.mdworkbench/1", "deltameta_mdworkbench", phase))
        self.assertEqual((doc["interface"], doc["ranks"], doc["objects"]), (interface, RANKS, objects), doc)
        self.assertEqual({op: t["count"] for op, t in doc["ops_by_type"].items()}, ops)
        self.assertEqual(doc["ops"], sum(ops.values()))
        v = doc["verification"]
        self.assertEqual({k: v[k] for k in VERIFICATION + ["total"]}, dict.fromkeys(VERIFICATION + ["total"], 0))
        self.assertEqual(v["expected_ops"], doc["ops"])
        for t in doc["ops_by_type"].values():
            self.assertEqual(t["errors"], 0)
            latency = [t["latency_us"][q] for q in QUANTILES]
            self.assertEqual(latency, sorted(latency))
            self.assertGreater(latency[0], 0)
        self.assertEqual(doc["parameters"], dict(doc["parameters"], data_sets=DSETS, precreate_per_set=P,
                                                 objects_per_set=PER_ITER, object_size=SIZE, iterations=R,
                                                 offset=OFFSET))
        self.assertGreater(doc["elapsed_s"], 0)
        self.assertAlmostEqual(doc["op_rate"], doc["ops"] / doc["elapsed_s"], delta=1e-6 * doc["op_rate"])
        self.assertLessEqual(doc["balance"]["rank_min_s"], doc["balance"]["rank_max_s"])
        self.assertEqual(doc["run"], "mdworkbench")
        for key in ("cpu_s", "build", "host", "placement", "finished_at"):
            self.assertIn(key, doc)
        self.assertLess(abs(doc["finished_at_unix_s"] - time.time()), 600)  # written just after the phase

    def check_three_phases(self, docs, interface):
        self.assertEqual([d["phase"] for d in docs], ["precreate", "benchmark", "cleanup"])
        self.check_phase(docs[0], "precreate", interface, PRECREATED, {"create": PRECREATED})
        self.check_phase(docs[1], "benchmark", interface, BENCHMARKED, dict.fromkeys(
            ["create", "stat", "read", "delete"], BENCHMARKED))
        self.check_phase(docs[2], "cleanup", interface, PRECREATED, {"delete": PRECREATED})
        for d in docs:
            self.assertNotIn("not_served", d)
            self.assertEqual([(r["rank"], r["errors"]) for r in d["per_rank"]], [(r, 0) for r in range(RANKS)])
            self.assertEqual(sum(r["ops"] for r in d["per_rank"]), d["ops"])

    def servers(self, *args):
        return self.s.start_servers("svr", SERVERS, self.s.path("svr"), flags(skip_fs_checks=0) + list(args),
                                    {"DELTAFS_Db_compression": 1})

    def tool(self, name, args, ranks=RANKS, **space):
        """The tool at this file's scale (`space` overrides, e.g. object_size=1000)."""
        params = dict(SPACE, **{k.replace("_", "-"): v for k, v in space.items()})
        return self.s.run(name, ranks, "deltameta_mdworkbench", flags(**params) + list(args), timeout=120)


class MdwbTest(MdwbBase):
    def test_posix_through_runs(self):
        latency = self.s.path("latency")
        rc, err, docs, work = self.runs("posix", "--process-reports", "--latency-dir", latency)
        self.assertEqual(rc, 0, err)
        self.check_three_phases(docs, "posix")
        for d in docs:
            self.assertIsNone(d["parameters"]["inline_data_max"])
            self.assertEqual(d["storage"]["backend"], "posix")
        self.assertFalse(os.path.exists(os.path.join(work, "posix")), "runs.py left the tree")
        # One latency file per rank and phase, a line per operation.
        for d in docs:
            lines = 0
            for rank in range(RANKS):
                with open(os.path.join(latency, "posix-%s-%d.csv" % (d["phase"], rank))) as f:
                    rows = f.read().splitlines()
                self.assertEqual(rows[0], "op,start_us,latency_us")
                self.assertEqual({row.split(",")[0] for row in rows[1:]}, set(d["ops_by_type"]))
                lines += len(rows) - 1
            self.assertEqual(lines, d["ops"])

    def test_indexfs_through_runs(self):
        rc, err, docs, _ = self.runs("indexfs", "--process-reports")
        self.assertEqual(rc, 0, err)
        self.check_three_phases(docs, "indexfs")
        for d in docs:
            self.assertEqual(d["parameters"]["inline_data_max"], 65479)
            self.assertGreater(d["cpu_s"]["servers"], 0)

    def test_indexfs_keeps_p_objects_per_set_and_cleanup_removes_them(self):
        srv = self.servers()
        addresses = harness.server_addresses(srv)
        r = self.tool("pre-bench", flags(interface="indexfs", info_svr_uri=srv.uri) + ["-1", "-2"])
        self.assertEqual(r.rc, 0, r)
        # Every handled object was deleted and replaced: P per data set, none more.
        self.assertEqual(harness.count_entries(addresses), PRECREATED)
        self.assertEqual(r.docs[1]["verification"]["total"], 0, r.docs[1])
        r = self.tool("cleanup", flags(interface="indexfs", info_svr_uri=srv.uri) + ["-3"])
        self.assertEqual(r.rc, 0, r)
        self.assertEqual(r.docs[0]["objects"], PRECREATED)
        self.assertEqual(harness.count_entries(addresses), 0)
        # A second cleanup finds nothing: every delete reports its object missing.
        r = self.tool("again", flags(interface="indexfs", info_svr_uri=srv.uri) + ["-3"])
        self.assertEqual(r.rc, 1, r)
        self.assertEqual(r.docs[0]["verification"]["missing"], PRECREATED)
        self.assertEqual(r.docs[0]["objects"], 0)
        self.assertIn("verification failed: cleanup: %d missing" % PRECREATED, r.err)
        self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())

    def test_indexfs_inline_limit(self):
        srv = self.servers("--inline_data_max=1000")
        over = self.tool("over", flags(interface="indexfs", info_svr_uri=srv.uri) + ["-1"])
        self.assertEqual(over.rc, 1, over)
        self.assertEqual(over.docs, [])
        self.assertIn("an object of 3901 bytes is over the inline data limit of server", over.err)
        self.assertIn("1000 bytes: lower --object-size or raise deltameta_server --inline_data_max", over.err)
        at = self.tool("at", flags(interface="indexfs", info_svr_uri=srv.uri), object_size=1000)
        self.assertEqual(at.rc, 0, at)
        self.assertEqual([d["parameters"]["inline_data_max"] for d in at.docs], [1000] * 3)
        self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())

    def posix_precreated(self):
        root = self.s.path("tree")
        r = self.tool("precreate", flags(root=root) + ["-1"])
        self.assertEqual(r.rc, 0, r)
        return root

    def test_posix_changed_bytes_and_mode_are_reported(self):
        root = self.posix_precreated()
        with open(object_path(root, 1, 0, 3), "r+b") as f:  # handled by rank 0 in iteration 0
            f.seek(100)
            byte = f.read(1)
            f.seek(100)
            f.write(bytes([byte[0] ^ 0xFF]))
        os.chmod(object_path(root, 2, 1, 17), 0o600)  # rank 1, iteration 1
        r = self.tool("benchmark", flags(root=root) + ["-2"])
        self.assertEqual(r.rc, 1, r)
        v = r.docs[0]["verification"]
        self.assertEqual({k: v[k] for k in VERIFICATION + ["total"]},
                         dict(failed=0, missing=0, mismatched=1, wrong_bytes=1, deleted_still_found=0, total=2))
        self.assertEqual({op: t["errors"] for op, t in r.docs[0]["ops_by_type"].items()},
                         dict(create=0, stat=1, read=1, delete=0))
        self.assertIn("deltameta_mdworkbench: error: verification failed: benchmark: 1 mismatched, 1 wrong_bytes",
                      r.err)
        cleanup = self.tool("cleanup", flags(root=root) + ["-3"])
        self.assertEqual(cleanup.rc, 0, cleanup)
        self.assertEqual(os.listdir(root), [])

    def test_posix_removed_file_is_reported_missing(self):
        root = self.posix_precreated()
        os.remove(object_path(root, 0, 1, 12))  # rank 2 handles rank 0's objects
        r = self.tool("benchmark", flags(root=root) + ["-2", "--process-reports"])
        self.assertEqual(r.rc, 1, r)
        doc = r.docs[0]
        # Its stat, read and delete each find it missing; its replacement is created.
        self.assertEqual(doc["verification"]["missing"], 3)
        self.assertEqual(doc["verification"]["total"], 3)
        self.assertEqual([p["errors"] for p in doc["per_rank"]], [0, 0, 3])
        self.assertIn("verification failed: benchmark: 3 missing", r.err)
        self.assertIn("  verification: 0 failed, 3 missing", r.out)

    def test_runs_reports_a_failed_phase_after_its_documents(self):
        # A stale object where the precreate puts one: its create finds it (failed) and the
        # benchmark reads its bytes (wrong); runs.py writes the documents, then fails.
        stale = self.s.path("stale")
        os.makedirs(os.path.join(stale, "r0.d0"))
        with open(object_path(stale, 0, 0, 1), "wb") as f:
            f.write(b"stale" * 10)
        os.makedirs(self.s.path("posix"))
        # runs.py clears its tree before the run, but leaves a symbolic link in its place.
        os.symlink(stale, self.s.path("posix", "posix"))
        rc, err, docs, _ = self.runs("posix")
        self.assertEqual(rc, 1, err)
        self.assertEqual([d["phase"] for d in docs], ["precreate", "benchmark", "cleanup"])
        self.assertEqual(docs[0]["verification"]["failed"], 1)
        self.assertEqual((docs[1]["verification"]["mismatched"], docs[1]["verification"]["wrong_bytes"]), (1, 1))
        self.assertEqual(docs[2]["verification"]["total"], 0)
        self.assertEqual({d["interface"] for d in docs}, {"posix"})
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("verification errors in precreate (1), benchmark (2)", err)
        self.assertTrue(err.startswith("runs: mdworkbench: "), err)

    def test_bad_flags(self):
        for args, why in [
            (flags(interface="nfs"), "--interface must be posix, indexfs, deltafs or cephfs"),
            ([], "--interface=posix needs --root"),
            (flags(interface="deltafs", root="/x") + ["-3"], "--interface=deltafs has no cleanup phase"),
            (flags(interface="deltafs", root="/x"), "--interface=deltafs runs one phase per job"),
            (flags(interface="deltafs", root="/x") + ["-1", "-S=65480"], "over what DeltaFS carries, 65479 bytes"),
            (flags(interface="indexfs", **{"object-size": 1 << 20}), "over what one request frame carries"),
            (["-D=0", "--root=/x"], "--dset-count expects an integer in [1, 1048576], got '0'"),
            (["-Q=1", "--root=/x"], "malformed argument '-Q=1'"),
        ]:
            r = self.s.run("bad", 1, "deltameta_mdworkbench", args, json=False)
            self.assertEqual(r.rc, 2, r)
            self.assertIn(why, r.err)
        r = self.s.run("help", 1, "deltameta_mdworkbench", ["--help"], json=False)
        self.assertEqual(r.rc, 0, r)
        self.assertIn("--dset-count=10", r.out)


if __name__ == "__main__":
    unittest.main()
