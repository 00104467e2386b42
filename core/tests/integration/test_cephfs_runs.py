# The runs' workload on CephFS (deltameta_client --cephfs=1), the production baseline of
# issue 36: client ranks create their files through the MDS of ctest's shared cluster
# (scripts/ceph-cluster.sh start --cephfs; CEPH_CONF set by ctest) and lstat them back,
# every lstat verified; a read that finds fewer files fails verification; what goes wrong
# (no cluster, libcephfs missing, bad flags) is one line. Also the workflow's cephfs run,
# core/bench/runs.py cephfs: its documents (the MDS's CPU among them), a directory of its own
# per execution, and a configuration that cannot be read failing in one line.
import os
import shutil
import subprocess
import sys
import unittest

import harness
from harness import flags

N, CLIENTS = 300, 2
RUNS = os.path.join(os.path.dirname(os.path.abspath(harness.__file__)), "..", "..", "bench", "runs.py")
QUANTILES = ["min", "q1", "median", "q3", "q90", "q99", "max"]


class CephfsRuns(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)
        self.dir = "/" + self.s.tag  # this test's own directory in the shared file system

    def run_client(self, name, n=N, env=None, timeout=120, **extra):
        args = dict(cephfs=1, cephfs_dir=self.dir, n=n, read_phases=1)
        args.update(extra)
        return self.s.client(name, CLIENTS, flags(**args), env=env, timeout=timeout)

    def check(self, r, phases, total):
        self.assertEqual(r.rc, 0, r)
        self.assertEqual(harness.result_lines(r.out), {p: total for p in phases}, r)
        self.assertEqual([d["phase"] for d in r.docs], [{"fstats": "lstat"}.get(p, p) for p in phases])
        for d in r.docs:
            self.assertEqual((d["ranks"], d["ops"], d["errors"]["total"]), (CLIENTS, total, 0), d)
            self.assertEqual((d["parameters"]["mode"], d["servers"], d["transport"]), ("cephfs", 0, "none"))
            latency = [d["latency_us"][q] for q in QUANTILES]
            self.assertEqual(latency, sorted(latency), d["latency_us"])

    def test_creates_and_lstats_in_a_shared_directory_are_verified(self):
        r = self.run_client("shared", verify_total=1)
        self.check(r, ["insert", "fstats"], N * CLIENTS)
        self.assertIn("CephFS:             (default) in %s" % self.dir, r.out)
        # A new job's mounts start with empty caches: its lstats go to the MDS.
        again = self.run_client("again", write_phases=0, use_existing_fs=1)
        self.check(again, ["fstats"], N * CLIENTS)
        # Files that were never created are found missing: verification can fail.
        more = self.run_client("more", n=N + 10, write_phases=0, use_existing_fs=1)
        self.assertEqual(more.rc, 1, more)
        self.assertIn("errors: 0 already existed, 20 missing, 0 with wrong attributes, 0 failed", more.out)
        # Creating the same names again: every create finds its name taken.
        twice = self.run_client("twice", read_phases=0)
        self.assertEqual(twice.rc, 1, twice)
        self.assertIn("errors: %d already existed, 0 missing" % (N * CLIENTS), twice.out)

    def runs(self, name, conf=None, prefix=()):
        """runs.py cephfs with CLIENTS ranks x N files in the work directory "work" (started
        by the command `prefix` if given): (exit code, stderr, documents, work directory); no
        process may be left once it returned."""
        work, out = self.s.path("work"), self.s.path(name + ".jsonl")
        cmd = [*prefix, sys.executable, RUNS, "cephfs", "--bin", harness.BIN, "--mpiexec", harness.MPIEXEC,
               "--work", work, "--out", out, "--log", self.s.path(name + ".log"), "--ranks", str(CLIENTS),
               "--n", str(N), "--repetition", "2", "--timeout", "120"] + (["--ceph-conf", conf] if conf else [])
        return (*self.s.run_script("runs-" + name, cmd, out), work)

    def test_the_workflows_cephfs_run(self):
        rc, err, docs, work = self.runs("first")
        self.assertEqual(rc, 0, err)
        self.assertEqual([d["phase"] for d in docs], ["insert", "lstat"])
        [where] = {d["cephfs_dir"] for d in docs}
        self.assertTrue(where.startswith("/deltameta-runs" + work + "/"), where)
        for d in docs:
            self.assertEqual((d["run"], d["ops"], d["errors"]["total"]), ("cephfs", N * CLIENTS, 0), d)
            self.assertEqual((d["parameters"]["mode"], d["parameters"]["cephfs_dir"]), ("cephfs", where))
            self.assertTrue(d["parameters"]["share_dir"] and d["parameters"]["verify_total"])
            self.assertEqual(d["coordinates"], dict(implementation="deltameta", client_ranks=CLIENTS, servers=0,
                                                    files_per_rank=N, repetition=2))
            self.assertEqual(d["storage"]["stores"], {})  # CephFS's directory is no store of ours
            # The MDS of ctest's cluster served the phase: its CPU, sampled from /proc, is the servers'.
            # Every create reaches it; lstats the client may answer from its own cache, holding the
            # directory's capabilities (a 12 ms phase once used no tick of the MDS's CPU).
            self.assertEqual(d["servers_sampled"], {"names": ["ceph-mds"], "processes": 1}, d)
            if d["phase"] == "insert":
                self.assertGreater(d["cpu_s"]["servers"], 0, d)
            else:
                self.assertGreaterEqual(d["cpu_s"]["servers"], 0, d)
            self.assertTrue(d["environment"]["readings"])
        # A second execution in the same folder (a rerun) creates its files in a directory of its own.
        rc, err, again, _ = self.runs("again")
        self.assertEqual(rc, 0, err)
        self.assertNotEqual({d["cephfs_dir"] for d in again}, {where})

    def test_the_workflows_cephfs_run_fails_in_one_line_on_a_bad_configuration(self):
        conf = self.s.path("missing.conf")
        rc, err, docs, _ = self.runs("bad-conf", conf)
        self.assertEqual(rc, 1, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("runs: cephfs: client exited with code 1: deltameta_client: error: cannot read %s" % conf, err)
        self.assertEqual(docs, [])

    def test_an_mds_this_host_cannot_see_fails_the_run_in_one_line(self):
        # In a PID namespace of its own (as on a host other than the MDS's) runs.py cannot read
        # the MDS's CPU: the run fails saying so, rather than recording none.
        hide = ("unshare", "--pid", "--fork", "--mount-proc")
        if shutil.which("unshare") is None or subprocess.run([*hide, "true"], capture_output=True).returncode != 0:
            self.skipTest("needs unshare (util-linux) and a PID namespace to hide the MDS's process in")
        rc, err, docs, _ = self.runs("hidden-mds", prefix=hide)
        self.assertEqual(rc, 1, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("runs: no ceph-mds of %s runs on this host" % os.environ["CEPH_CONF"], err)
        self.assertIn("leave cephfs out of systems", err)
        self.assertEqual(docs, [])

    def test_a_directory_per_rank(self):
        r = self.run_client("per-rank", share_dir=0, verify_total=1)
        self.check(r, ["insert", "fstats"], N * CLIENTS)

    def test_the_file_system_by_name_and_a_missing_one(self):
        r = self.run_client("named", n=20, cephfs_name="deltameta")
        self.check(r, ["insert", "fstats"], 20 * CLIENTS)
        r = self.run_client("no-such-fs", n=20, cephfs_name="nosuchfs")
        self.assertEqual(r.rc, 1, r)
        self.assertIn("has no CephFS file system nosuchfs: name one `ceph fs ls` lists", r.err)

    def test_unreachable_cluster_fails_within_the_timeout_in_one_line(self):
        conf = self.s.path("nowhere.conf")
        with open(conf, "w") as f:
            f.write("[global]\nmon host = v2:127.0.0.1:%d\nauth client required = none\n" % harness.refused_port(self))
        r = self.run_client("nowhere", n=10, env={"CEPH_CONF": conf}, rpc_timeout=3, timeout=60)
        self.assertEqual(r.rc, 1, r)
        self.assertIn("cannot mount CephFS (the default file system) of %s within 3 s" % conf, r.err)
        self.assertIn("scripts/ceph-cluster.sh start DIR --cephfs", r.err)
        self.assertLess(r.elapsed, 30, r)

    def test_bad_flags_are_one_line(self):
        for extra, message in [({"bk": 1, "db": self.s.path("t")}, "--cephfs=1 excludes --bk=1"),
                               ({"cephfs_dir": "relative"}, "--cephfs_dir must be an absolute path")]:
            r = self.run_client("bad", n=10, **extra)
            self.assertEqual(r.rc, 2, r)
            self.assertIn(message, r.err)

    def test_libcephfs_that_cannot_be_loaded_is_named(self):
        # Each rank in a mount namespace of its own sees every libcephfs as an empty file, as
        # on a host without libcephfs2: the job must say so in one line, not crash.
        libs = sorted({os.path.realpath(os.path.join(d, f)) for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib")
                       if os.path.isdir(d) for f in os.listdir(d) if f.startswith("libcephfs.so")})
        self.assertTrue(libs, "no libcephfs found: run scripts/install-deps.sh")
        hide = " && ".join("mount --bind /dev/null %s" % lib for lib in libs)
        if shutil.which("unshare") is None:
            self.skipTest("needs unshare (util-linux) to hide libcephfs in a mount namespace of its own")
        probe = subprocess.run(["unshare", "--mount", "sh", "-c", hide], capture_output=True, text=True, timeout=30)
        if probe.returncode != 0:
            why = (probe.stderr.strip().splitlines() or ["exit code %d" % probe.returncode])[0]
            self.skipTest("needs to bind-mount in a mount namespace of its own (root with CAP_SYS_ADMIN), "
                          "which this user or container may not: %s" % why)
        wrapper = ("unshare", "--mount", "sh", "-c", hide + ' && exec "$0" "$@"')
        for tool, args in [("deltameta_client", flags(cephfs=1, cephfs_dir=self.dir, n=10)),
                           ("deltameta_mdworkbench", flags(interface="cephfs", root=self.dir))]:
            job = self.s.start("no-lib", CLIENTS, tool, args, wrapper=wrapper)
            rc = job.wait(60)
            job.wait_gone()
            r = job.result(rc)
            self.assertEqual(r.rc, 1, r)
            lines = [line for line in r.err.strip().splitlines() if "libcephfs" in line]
            self.assertEqual(len(lines), 1, r.err)
            self.assertIn(tool + ": error: the CephFS client needs libcephfs, which cannot be loaded", lines[0])
            self.assertIn("install libcephfs2", lines[0])


if __name__ == "__main__":
    unittest.main()
