# deltameta_mdworkbench's deltafs interface at a tiny scale: runs.py mdworkbench --interface
# deltafs (precreate into the ranks' stores, the compactor, read-only servers, the benchmark's
# stats and reads, every byte checked after the compaction carried it), what it does not
# serve (create, delete, cleanup), its benchmark under a stonewall (-w) and how the read-only
# servers refuse writes.
import os
import unittest

import test_mdworkbench as mdwb
from harness import flags


class MdwbDeltafsTest(mdwb.MdwbBase):
    def test_deltafs_through_runs(self):
        rc, err, docs, _ = self.runs("deltafs", "--process-reports")
        self.assertEqual(rc, 0, err)
        self.assertEqual([d["phase"] for d in docs], ["precreate", "compaction", "benchmark"])
        self.check_phase(docs[0], "precreate", "deltafs", mdwb.PRECREATED, {"create": mdwb.PRECREATED})
        compaction = docs[1]
        self.assertEqual((compaction["tool"], compaction["ops"], compaction["errors"]["total"]),
                         ("deltameta_compactor", mdwb.PRECREATED, 0))
        self.assertEqual((compaction["run"], compaction["interface"]), ("mdworkbench", "deltafs"))
        bench = docs[2]
        self.check_phase(bench, "benchmark", "deltafs", mdwb.BENCHMARKED,
                         {"stat": mdwb.BENCHMARKED, "read": mdwb.BENCHMARKED})
        self.assertEqual(bench["not_served"], ["create", "delete"])
        self.assertIn("read-only after its compaction", bench["not_served_reason"])
        self.assertGreater(bench["cpu_s"]["servers"], 0)
        for d in (docs[0], bench):
            self.assertEqual(d["parameters"]["inline_data_max"], 65479)

    def test_deltafs_stonewall_through_runs(self):
        # -w alone on the benchmark job (-2): DeltaFS replaces nothing, so each rank may stop
        # on its own; iterations far longer than 1 s, so every rank does.
        many = 10 ** 7
        rc, err, docs, _ = self.runs("deltafs", "--objects", str(many), "--stonewall", "1")
        self.assertEqual(rc, 0, err)
        bench = docs[2]
        positions = bench["positions_run"]
        self.assertEqual([len(ran) for ran in positions], [mdwb.RANKS] * mdwb.R)
        self.assertTrue(all(1 <= k < many for ran in positions for k in ran), positions)
        objects = mdwb.DSETS * sum(map(sum, positions))
        self.assertEqual(bench["objects"], objects)
        self.assertEqual({op: t["count"] for op, t in bench["ops_by_type"].items()}, {"stat": objects, "read": objects})
        self.assertEqual((bench["verification"]["expected_ops"], bench["verification"]["total"]), (2 * objects, 0))
        self.assertEqual(bench["parameters"]["stonewall_timer_s"], 1)

    def test_read_only_servers_serve_reads_and_refuse_writes(self):
        origin, compacted = self.s.path("origin"), self.s.path("compacted")
        pre = self.tool("pre", flags(interface="deltafs", root=origin) + ["-1"], ranks=2)
        self.assertEqual(pre.rc, 0, pre)
        self.assertEqual(sorted(os.listdir(origin)), ["r0", "r1"])
        c = self.s.compactor("compact", mdwb.SERVERS, flags(src_dir=origin, dst_dir=compacted))
        self.assertEqual(c.rc, 0, c)
        srv = self.s.start_servers("svr", mdwb.SERVERS, compacted, flags(use_existing_fs=1))
        bench = self.tool("bench", flags(interface="deltafs", info_svr_uri=srv.uri) + ["-2"], ranks=2)
        self.assertEqual(bench.rc, 0, bench)
        self.assertEqual(bench.docs[0]["verification"]["total"], 0)
        self.assertIn("  not served: create, delete (DeltaFS's namespace is read-only", bench.out)
        # More objects than were precreated are not there to read: with P + 5 of them and R x I
        # over it, the benchmark visits objects P .. P + 4 too.
        more = self.tool("more", flags(interface="deltafs", info_svr_uri=srv.uri) + ["-2"], ranks=2,
                         precreate_per_set=mdwb.P + 5, obj_per_proc=mdwb.P)
        self.assertEqual(more.rc, 1, more)
        self.assertGreater(more.docs[0]["verification"]["missing"], 0)
        # The indexfs interface against the same servers: its creates are refused.
        write = self.tool("write", flags(interface="indexfs", info_svr_uri=srv.uri) + ["-1"], ranks=2)
        self.assertEqual(write.rc, 1, write)
        self.assertIn("is read-only (--use_existing_fs=1) and serves no create", write.err)
        self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())


if __name__ == "__main__":
    unittest.main()
