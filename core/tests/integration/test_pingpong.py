# deltameta_pingpong (tools/pingpong_main.cc): every transport's ping-pong runs with the
# tools' process placement and reports what side_by_side.py reads (calls, Mop/s, CPU time
# and context switches per call, as a line and as JSON); bad flags and a server that cannot
# start give one clear line; nothing is left running.
import json
import os
import re
import subprocess
import unittest

import harness

TOOL = os.path.join(harness.BIN, "deltameta_pingpong")
LINE = re.compile(r"^(shm|unix|tcp|udp): 3 clients x 2 servers \(2 threads each, cpu_affinity ([01])\): 900 calls in "
                  r"[0-9.]+ s, ([0-9.]+) Mop/s; per call: CPU us client ([0-9.]+) server ([0-9.]+), voluntary "
                  r"switches client [0-9.]+ server [0-9.]+, involuntary [0-9.]+$")


class PingPong(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)

    def run_tool(self, *args, env=None):
        full_env = dict(os.environ, **{harness.TAG_VAR: self.s.tag}, **(env or {}))
        r = subprocess.run([TOOL] + list(args), capture_output=True, text=True, timeout=120, env=full_env)
        harness.wait_until(lambda: not harness.tagged_pids(self.s.tag), 10, "the ping-pong's processes to be gone")
        return r

    def test_every_transport(self):
        for transport, pinned in (("shm", 1), ("unix", 1), ("tcp", 1), ("udp", 0)):
            with self.subTest(transport=transport):
                out = self.s.path(transport + ".json")
                r = self.run_tool(f"--transport={transport}", "--clients=3", "--servers=2", "--calls=300",
                                  "--warmup=20", f"--cpu_affinity={pinned}", f"--json={out}")
                self.assertEqual(r.returncode, 0, r.stderr)
                m = LINE.match(r.stdout.strip())
                self.assertIsNotNone(m, r.stdout)
                self.assertEqual((m[1], m[2]), (transport, str(pinned)))
                self.assertGreater(float(m[3]), 0)
                self.assertGreater(float(m[4]) + float(m[5]), 0)  # the calls cost CPU somewhere
                with open(out) as f:
                    doc = json.load(f)
                self.assertEqual(doc["schema"], "deltameta.pingpong/1")
                self.assertEqual(doc["calls"], 900)
                self.assertEqual(doc["flags"]["transport"], transport)
                self.assertAlmostEqual(doc["mops"], 900 / doc["seconds"] / 1e6, places=6)
                self.assertEqual(set(doc["per_call"]), {"client_cpu_us", "server_cpu_us", "client_voluntary_switches",
                                                        "server_voluntary_switches", "involuntary_switches"})
                self.assertTrue(all(v >= 0 for v in doc["per_call"].values()), doc)

    def test_bad_flags_are_one_line(self):
        for args, why in ((["--transport=quic"], "--transport=quic: expected shm, unix, tcp or udp"),
                          (["--clients=0"], "--clients"), (["--nope=1"], "--nope")):
            r = self.run_tool(*args)
            self.assertEqual(r.returncode, 2, r)
            self.assertEqual(r.stdout, "")
            lines = r.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, r.stderr)
            self.assertTrue(lines[0].startswith("deltameta_pingpong: error: ") and why in lines[0], lines[0])

    def test_a_server_that_cannot_start(self):
        # The servers make or read the job's secret; under a file there is no directory to hold it.
        blocker = self.s.path("a-file")
        open(blocker, "w").close()
        r = self.run_tool("--calls=10", env={"DELTAMETA_SECRET_FILE": os.path.join(blocker, "secret")})
        self.assertEqual(r.returncode, 1, r)
        self.assertEqual(r.stdout, "")
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 2, r.stderr)
        self.assertTrue(lines[0].startswith("deltameta_pingpong[server 0]: "), lines[0])
        self.assertEqual(lines[1], "deltameta_pingpong: error: server 0 failed")


if __name__ == "__main__":
    unittest.main()
