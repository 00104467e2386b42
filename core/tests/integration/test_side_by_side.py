# core/bench/side_by_side.py at small scale on our tools only: all seven phases with numbers,
# ours unpinned on request (--cpu-affinity 0),
# nothing left running, and a clear one-line error for a bad --original.
import json
import os
import re
import subprocess
import sys
import unittest

import harness

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "side_by_side.py")
PHASES = ["run1 insert", "run1 lstat", "run2 bulk insert", "run2 lstat", "run3 DeltaFS insert", "run3 compaction",
          "run3 lstat"]
PER_OP = {"run1 insert": "4x2", "run1 lstat": "4x2", "run2 lstat": "4x2", "run3 lstat": "4x4"}


class SideBySide(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)

    def script(self, *args, timeout=120):
        env = dict(os.environ, **{harness.TAG_VAR: self.s.tag})
        cmd = [sys.executable, SCRIPT, "--bin", harness.BIN, "--mpiexec", harness.MPIEXEC] + list(args)
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        harness.wait_until(lambda: not harness.tagged_pids(self.s.tag), 10, "the script's jobs to be gone")
        return r

    def test_our_tools_all_seven_phases(self):
        out_json = self.s.path("result.json")
        r = self.script("--n", "500", "--repeat", "1", "--info-port", "0",
                        "--pingpong-calls", "300", "--work", self.s.path("work"), "--json", out_json)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for phase in PHASES:
            # ours, original, goal, ours/orig, goal met, ours of the shared-memory ceiling, the original's of UDP's
            row = re.search(r"^%s +([0-9.]+) \(([0-9.]+)-([0-9.]+)\) +- +>= [0-9.]+ +- +(yes|no) +([0-9.]+|-) +-$"
                            % phase, r.stdout, re.M)
            self.assertIsNotNone(row, "no table row for %s in:\n%s" % (phase, r.stdout))
            self.assertGreater(float(row.group(1)), 0)
            self.assertEqual(row.group(5) != "-", phase in PER_OP, row.group(0))
        with open(out_json) as f:
            doc = json.load(f)
        self.assertEqual([p["phase"] for p in doc["phases"]], PHASES)
        for p in doc["phases"]:
            self.assertEqual(len(p["ours"]["values"]), 1, p)
            self.assertIsNone(p["original"])
            if p["phase"] in PER_OP:
                self.assertEqual(p["ceiling"]["placement"], PER_OP[p["phase"]], p)
                self.assertGreater(p["ceiling"]["ours"], 0, p)
                self.assertIsNone(p["ceiling"]["original"], p)
            else:
                self.assertIsNone(p["ceiling"], p)
        # The ceilings: every transport at both placements, in a table and in the JSON.
        ceilings = {(c["transport"], c["placement"]): c for c in doc["ceilings"]}
        self.assertEqual(set(ceilings), {(t, p) for t in ("shm", "unix", "tcp", "udp") for p in ("4x2", "4x4")})
        for (transport, placement), c in ceilings.items():
            self.assertGreater(c["mops"]["median"], 0, c)
            self.assertEqual(c["cpu_affinity"], 0 if transport == "udp" else 1)
            self.assertRegex(r.stdout, r"\n%s +%s +%d +[0-9.]+ \(" % (transport, placement, c["cpu_affinity"]))
        # The machine beside every table, and in the JSON.
        machine = r"^machine: .+, \d+ CPUs, kernel \S+; steal [0-9.]+% of CPU time over the invocation, load "
        self.assertEqual(len(re.findall(machine, r.stdout, re.M)), 3, r.stdout)
        for key in ("cpu_model", "kernel", "cpus", "steal_percent"):
            self.assertIn(key, doc["host"])
        self.assertGreaterEqual(doc["repetitions"][0]["steal_percent"], 0)
        jobs = [m["job"] for m in doc["peak_memory"]]
        self.assertEqual(jobs, ["run1 servers", "run1 client", "run2 servers", "run2 client", "run3 DeltaFS write",
                                "run3 compaction", "run3 servers", "run3 read client"])
        for m in doc["peak_memory"]:
            self.assertIsNone(m["resident_mib"]["original"])
            if m["job"].endswith("servers"):  # they live through a client job: sampled for sure
                self.assertGreater(m["resident_mib"]["ours"], m["private_mib"]["ours"], m)
                self.assertGreater(m["private_mib"]["ours"], 0, m)
        self.assertRegex(r.stdout, r"\nrun1 servers +[0-9.]+ +- +[0-9.]+ +-\n")
        self.assertEqual(os.listdir(self.s.path("work")), ["logs"], "the stores were not removed")

    def test_ours_unpinned_in_the_phases_and_the_ceilings(self):
        """--cpu-affinity 0: every client job of ours and ours' ping-pongs leave placement to
        the scheduler; the original's UDP ping-pong stays unpinned either way."""
        out_json = self.s.path("result.json")
        r = self.script("--n", "200", "--repeat", "1", "--info-port", "0", "--pingpong-calls", "100",
                        "--cpu-affinity", "0", "--work", self.s.path("work"), "--json", out_json)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("(ours' clients unpinned)", r.stdout)
        with open(out_json) as f:
            doc = json.load(f)
        self.assertEqual(doc["cpu_affinity"], 0)
        self.assertEqual({c["cpu_affinity"] for c in doc["ceilings"]}, {0})
        with open(os.path.join(self.s.path("work"), "logs", "commands.log")) as f:
            clients = [line for line in f if "/deltameta_client " in line]
        self.assertEqual(len(clients), 4, clients)  # runs 1 and 2, run 3's write and read
        for line in clients:
            self.assertIn(" --cpu_affinity=0", line)

    def test_bad_original_is_one_clear_line(self):
        r = self.script("--n", "500", "--original", self.s.path("no-such-dir"), timeout=30)
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(r.stdout, "")
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertRegex(lines[0], r"^side_by_side: --original .*no-such-dir: no such directory")

        empty = self.s.path("empty")
        os.makedirs(empty)
        r = self.script("--original", empty, timeout=30)
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(r.stderr.strip().splitlines(),
                         ["side_by_side: --original %s: no executable deltafs_bm_svr, deltafs_bm_cli, "
                          "parallel_compactor there: give the directory holding the original prototype's built "
                          "tools, e.g. its install/bin" % empty])

    def test_original_without_dir_is_the_workflows_build(self):
        build = os.path.join(os.path.dirname(SCRIPT), "..", "..", "results", "original", "install", "bin")
        if os.path.isdir(build):
            self.skipTest("this checkout holds the workflow's build of the original (results/original)")
        r = self.script("--n", "500", "--original", timeout=30)
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(r.stderr.strip().splitlines(),
                         ["side_by_side: --original: the workflow has not built the original prototype yet: snakemake "
                          "--cores all --configfile config/profiles/reproduce.yaml --until build_original "
                          "(config/README.md, \"The original prototype\")"])


if __name__ == "__main__":
    unittest.main()
