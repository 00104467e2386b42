# deltameta_mdworkbench's MD-Workbench result lines and its stonewall, on the posix
# interface at a tiny scale: the lines parsed as MD-Workbench's format has them (field names
# and order, the seven quantiles per operation type in MD-Workbench's order, the error
# count, one benchmark line per iteration, the per-rank lines), their counts against the
# phase documents, an error counted in the line; -w without and with -W (-W through runs.py,
# with the controls it gives the posix tree): the positions each rank ran, the counts that
# follow from them, a clean validation (the cleanup finds exactly the objects left); and the
# flags that do not go together.
import os
import re
import shutil
import sys
import unittest

import harness
from harness import flags

RUNS = os.path.join(os.path.dirname(os.path.abspath(harness.__file__)), "..", "..", "bench", "runs.py")
RANKS = 2
SPACE = {"dset-count": 2, "precreate-per-set": 20, "obj-per-proc": 5, "object-size": 3901, "iterations": 2,
         "offset": 1}
# A stonewall run: iterations far longer than -w=1, so that every rank stops on the stonewall.
WALL = {"dset-count": 1, "precreate-per-set": 10, "obj-per-proc": 10 ** 7, "object-size": 100, "iterations": 2,
        "offset": 1}

E = r"\d\.\d{4}e[+-]\d\d"  # %.4e
F1, F2, F3 = r"\d+\.\d", r"\d+\.\d\d", r"\d+\.\d{3}"
RATES = {
    "precreate": rf"rate:(?P<iops>{F1}) iops/s dsets: (?P<dsets>\d+) objects:(?P<objects>\d+) rate:{F3} dset/s "
                 rf"rate:{F1} obj/s tp:{F1} MiB/s op-max:(?P<opmax>{E})s",
    "benchmark": rf"rate:(?P<iops>{F1}) iops/s objects:(?P<objects>\d+) rate:(?P<orate>{F1}) obj/s tp:{F1} MiB/s "
                 rf"op-max:(?P<opmax>{E})s",
    "cleanup": rf"rate:(?P<iops>{F1}) iops/s objects:(?P<objects>\d+) dsets: (?P<dsets>\d+) rate:{F1} obj/s "
               rf"rate:{F3} dset/s op-max:(?P<opmax>{E})s",
}
GROUP = re.compile(rf" (read|stat|create|delete)\(({E})s, ({E})s, ({E})s, ({E})s, ({E})s, ({E})s, ({E})s\)")
ORDER = ["read", "stat", "create", "delete"]  # MD-Workbench's order of the latency groups


def parse_line(line):
    """One MD-Workbench result line as a dict (None if it is not one): rank (None for the
    phase's line), phase, max, the min/mean/balance/stddev part, the rates and counts,
    errs, stonewall_iter and the latency groups {op: [min, q1, median, q3, q90, q99, max]}
    in the order they came."""
    m = re.match(rf"^(?:(?P<rank>\d+): )?(?P<phase>precreate|benchmark|cleanup) process max:(?P<max>{F2})s "
                 rf"(?:min:(?P<min>{F1})s mean: (?P<mean>{F1})s balance:(?P<balance>{F1}) "
                 rf"stddev:(?P<stddev>-?nan|{F1}) )?", line)
    if not m:
        return None
    rest = line[m.end():]
    rates = re.match(RATES[m["phase"]] + r" \((?P<errs>\d+) errs(?P<bang>!!!)?\)(?: stonewall-iter:(?P<iter>\d+))?",
                     rest)
    if not rates:
        return None
    groups = rest[rates.end():]
    found = GROUP.findall(groups)
    if "".join(" %s(%s)" % (g[0], ", ".join(v + "s" for v in g[1:])) for g in found) != groups:
        return None
    d = dict(m.groupdict(), **rates.groupdict())
    d["groups"] = {g[0]: [float(v) for v in g[1:]] for g in found}
    d["order"] = [g[0] for g in found]
    return d


class MdwLinesTest(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)

    def tool(self, name, space, args, ranks=RANKS, timeout=120):
        return self.s.run(name, ranks, "deltameta_mdworkbench", flags(**space) + list(args), timeout=timeout)

    def lines(self, out):
        parsed = [parse_line(line) for line in out.splitlines()]
        self.assertNotIn(None, parsed, out)
        return parsed

    def check_groups(self, line, ops):
        self.assertEqual(line["order"], [op for op in ORDER if op in ops], line)
        for q in line["groups"].values():
            self.assertEqual(q, sorted(q), line)
            self.assertGreater(q[-1], 0)

    def test_lines_follow_mdworkbench_format(self):
        root = self.s.path("tree")
        r = self.tool("lines", SPACE, flags(root=root) + ["--output=mdworkbench", "--process-reports"])
        self.assertEqual(r.rc, 0, r)
        lines = self.lines(r.out)
        # A phase's line, then one per rank; a benchmark line per iteration.
        phases = ["precreate", "benchmark", "benchmark", "cleanup"]
        self.assertEqual([(d["phase"], d["rank"]) for d in lines],
                         [(p, rank) for p in phases for rank in (None, "0", "1")])
        ops = {"precreate": ["create"], "benchmark": ORDER, "cleanup": ["delete"]}
        d, p, i = SPACE["dset-count"], SPACE["precreate-per-set"], SPACE["obj-per-proc"]
        objects = {"precreate": RANKS * d * p, "benchmark": RANKS * d * i, "cleanup": RANKS * d * p}
        docs = {doc["phase"]: doc for doc in r.docs}
        for n, line in enumerate(lines):
            phase, share = line["phase"], (1 if line["rank"] is None else RANKS)
            self.check_groups(line, ops[phase])
            self.assertEqual((line["errs"], line["bang"], line["iter"]), ("0", None, None), line)
            self.assertEqual(int(line["objects"]), objects[phase] // share, line)
            if phase != "benchmark":
                self.assertEqual(int(line["dsets"]), RANKS * d // share, line)
            if line["rank"] is None:
                self.assertIsNotNone(line["min"], line)
                ranks = [float(x["max"]) for x in lines[n + 1:n + 1 + RANKS]]
                self.assertAlmostEqual(float(line["max"]), max(ranks), delta=0.0051)
                self.assertLessEqual(float(line["balance"]), 100.0)
            else:
                self.assertIsNone(line["min"], line)
            if phase == "benchmark":
                # 4 operations (stat, read, delete, create) per object read.
                self.assertAlmostEqual(float(line["iops"]), 4 * float(line["orate"]), delta=0.21)
        # The documents hold the same counts: the benchmark's over both iterations.
        self.assertEqual(docs["benchmark"]["objects"], SPACE["iterations"] * objects["benchmark"])
        self.assertEqual(docs["benchmark"]["positions_run"], [[i] * RANKS] * SPACE["iterations"])
        self.assertEqual(docs["cleanup"]["objects"], objects["cleanup"])
        # Both outputs by default, ours alone with --output=deltameta.
        both = self.tool("both", SPACE, flags(root=self.s.path("both")))
        self.assertEqual(both.rc, 0, both)
        self.assertEqual(len([x for x in both.out.splitlines() if parse_line(x)]), 4)
        self.assertIn("phase       ranks     time_s  balance", both.out)
        ours = self.tool("ours", SPACE, flags(root=self.s.path("ours"), output="deltameta"))
        self.assertEqual(ours.rc, 0, ours)
        self.assertEqual([x for x in ours.out.splitlines() if parse_line(x)], [])
        self.assertIn("phase       ranks     time_s  balance", ours.out)

    def test_an_error_is_counted_in_its_line(self):
        root = self.s.path("tree")
        r = self.tool("precreate", SPACE, flags(root=root) + ["-1"])
        self.assertEqual(r.rc, 0, r)
        # Rank 1 handles rank 0's data sets: object 2 in the first iteration.
        os.remove(os.path.join(root, "r0.d1", "o0.1.2"))
        r = self.tool("rest", SPACE, flags(root=root, output="mdworkbench") + ["-2", "-3", "--process-reports"])
        self.assertEqual(r.rc, 1, r)
        lines = [x for x in self.lines(r.out) if x["phase"] == "benchmark"]
        # Its stat, read and delete find it missing.
        self.assertEqual([(x["rank"], x["errs"], x["bang"]) for x in lines],
                         [(None, "3", "!!!"), ("0", "0", None), ("1", "3", "!!!"),
                          (None, "0", None), ("0", "0", None), ("1", "0", None)])
        self.assertEqual(r.docs[0]["verification"]["missing"], 3)

    def check_stonewall(self, docs, wear_out):
        """The positions each rank ran, the counts that follow from them, no verification error."""
        bench = docs["benchmark"]
        positions = bench["positions_run"]
        self.assertEqual(len(positions), WALL["iterations"])
        for ran in positions:
            self.assertEqual(len(ran), RANKS)
            for k in ran:
                self.assertTrue(1 <= k < WALL["obj-per-proc"], positions)
            if wear_out:
                self.assertEqual(len(set(ran)), 1, positions)
        objects = WALL["dset-count"] * sum(map(sum, positions))
        self.assertEqual(bench["objects"], objects)
        self.assertEqual({op: t["count"] for op, t in bench["ops_by_type"].items()}, dict.fromkeys(ORDER, objects))
        self.assertEqual(bench["verification"]["expected_ops"], 4 * objects)
        self.assertEqual((bench["parameters"]["stonewall_timer_s"], bench["parameters"]["stonewall_wear_out"]),
                         (1, wear_out))
        # The cleanup found exactly the precreated number left in each data set.
        self.assertEqual(docs["cleanup"]["objects"], RANKS * WALL["dset-count"] * WALL["precreate-per-set"])
        for doc in docs.values():
            self.assertEqual(doc["verification"]["total"], 0, doc)
        return positions

    def test_stonewall_without_wear_out(self):
        r = self.tool("wall", WALL, flags(root=self.s.path("tree"), output="both") + ["-w", "1"])
        self.assertEqual(r.rc, 0, r)
        positions = self.check_stonewall({d["phase"]: d for d in r.docs}, False)
        lines = [x for x in self.lines("\n".join(x for x in r.out.splitlines() if " process max:" in x))
                 if x["phase"] == "benchmark"]
        self.assertEqual(len(lines), WALL["iterations"])
        for line, ran in zip(lines, positions, strict=True):
            # Each rank stopped on its own; stonewall-iter is the most a rank ran.
            self.assertEqual(int(line["iter"]), max(ran), line)
            self.assertEqual(int(line["objects"]), WALL["dset-count"] * sum(ran))
            self.assertGreaterEqual(float(line["max"]), 1.0)

    def test_stonewall_with_wear_out_through_runs(self):
        work, out = self.s.path("work"), self.s.path("runs.jsonl")
        cmd = [sys.executable, RUNS, "mdworkbench", "--interface", "posix", "--bin", harness.BIN, "--mpiexec",
               harness.MPIEXEC, "--work", work, "--out", out, "--log", self.s.path("runs.log"), "--ranks", str(RANKS),
               "--servers", "1", "--data-sets", str(WALL["dset-count"]), "--precreate",
               str(WALL["precreate-per-set"]), "--objects", str(WALL["obj-per-proc"]), "--object-size",
               str(WALL["object-size"]), "--iterations", str(WALL["iterations"]), "--stonewall", "1", "--wear-out"]
        rc, err, found = self.s.run_script("runs", cmd, out, timeout=120)
        self.assertEqual(rc, 0, err)
        docs = {d["phase"]: d for d in found}
        positions = self.check_stonewall(docs, True)
        # runs.py's controls of the posix tree, in every document.
        controls = docs["precreate"]["posix_controls"]
        self.assertEqual((controls["synced"], controls["settle_s"]), (True, 0))
        self.assertEqual(controls["top_dir_flag"], controls["fs"].startswith("ext") and bool(shutil.which("chattr")),
                         controls)
        self.assertEqual({str(d["posix_controls"]) for d in docs.values()}, {str(controls)})
        # Rank 0 said where the wear-out ended each iteration (the job's log).
        with open(self.s.path("runs.log")) as f:
            log = f.read()
        said = [int(k) for k in re.findall(r"^stonewall wear out \d+\.\d+s \((\d+) iter\)$", log, re.M)]
        self.assertEqual(said, [ran[0] for ran in positions], log)
        benchmark = [parse_line(x) for x in log.splitlines() if x.startswith("benchmark process max:")]
        self.assertEqual([int(x["iter"]) for x in benchmark], said)

    def test_bad_flags(self):
        for args, why in [
            (["-W"], "-W (--stonewall-wear-out) needs -w SECONDS"),
            (["-w", "1", "-2"], "-w (--stonewall-timer) with the benchmark (-2) needs the cleanup (-3) in the same"),
            (["--output=json"], "--output must be deltameta, mdworkbench or both"),
            (["-w=-1"], "--stonewall-timer expects an integer"),
        ]:
            r = self.s.run("bad", 1, "deltameta_mdworkbench", flags(root="/x") + args, json=False)
            self.assertEqual(r.rc, 2, r)
            self.assertIn(why, r.err)
            self.assertEqual(len(r.err.strip().splitlines()), 1, r.err)


if __name__ == "__main__":
    unittest.main()
