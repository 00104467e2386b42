# The seed guide's command lines as written (only binary names and the /tmp/deltafs root changed):
# servers on the default info port 10086, awaited by their "Running..." line, stopped with ^C (SIGINT).
# That port is fixed, so where the machine allows it the test runs in a network namespace of
# its own (loopback only): another test suite on the machine (the Spack build's, running the
# same test beside this one) or a user's guide servers cannot take it from this test, nor it
# from them. Elsewhere it runs on the machine's network and says so.
import os
import shutil
import signal
import subprocess
import sys
import unittest

import harness

N = 3000
GUIDE_SERVER_ENV = ["-env", "DELTAFS_Db_write_ahead_log_buffer", "65536",
                    "-env", "DELTAFS_Db_disable_write_ahead_logging", "0",
                    "-env", "DELTAFS_Db_disable_compaction", "0",
                    "-env", "DELTAFS_Db_l0_soft_limit", "8",
                    "-env", "DELTAFS_Db_l0_hard_limit", "12",
                    "-env", "DELTAFS_Db_compression", "1"]


class GuideCommands(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)
        self.root = self.s.path("deltafs")

    def servers(self, name, np, args, mpi_args=()):
        job = self.s.start(name, np, "deltameta_server", args, mpi_args=mpi_args)
        harness.wait_until(lambda: "Running..." in job.stdout() or not job.running(), 30, name + " to say Running...")
        self.assertTrue(job.running(), job.stderr())
        return job

    def interrupt(self, job):
        os.killpg(job.proc.pid, signal.SIGINT)
        self.assertEqual(job.wait(30), 0, job.stderr())
        job.wait_gone()
        self.assertIn("Bye", job.stdout())

    def client(self, name, args, mpi_args=()):
        job = self.s.start(name, 4, "deltameta_client", args, mpi_args=mpi_args)
        rc = job.wait(120)
        job.wait_gone()
        self.assertEqual(rc, 0, job.stdout() + job.stderr())
        return harness.result_lines(job.stdout())

    def test_run1_run2_run3_as_written(self):
        svr = self.servers("run1-svr", 2, ["--db=%s/run1/svr" % self.root, "--skip_fs_checks=0",
                                           "--ports_per_rank=1", "--rpc_threads=2"], GUIDE_SERVER_ENV)
        lines = self.client("run1-cli", ["--share_dir=1", "--n=%d" % N, "--read_phases=1",
                                         "--info_svr_uri=tcp://127.0.0.1:10086", "--skip_fs_checks=0"])
        self.assertEqual(lines, {"insert": 4 * N, "fstats": 4 * N})
        self.interrupt(svr)

        svr = self.servers("run2-svr", 2, ["--db=%s/run2/svr" % self.root, "--skip_fs_checks=0",
                                           "--ports_per_rank=1", "--rpc_threads=2"], GUIDE_SERVER_ENV)
        lines = self.client("run2-cli", ["--share_dir=1", "--n=%d" % N, "--bk=1", "--db=%s/run2/cli" % self.root,
                                         "--read_phases=1", "--info_svr_uri=tcp://127.0.0.1:10086",
                                         "--skip_fs_checks=0"])
        self.assertEqual(lines, {"insert": 4 * N, "fstats": 4 * N})
        self.interrupt(svr)

        write_env = ["-env", "DELTAFS_Db_write_ahead_log_buffer", "65536",
                     "-env", "DELTAFS_Db_disable_write_ahead_logging", "0",
                     "-env", "DELTAFS_Db_disable_compaction", "1", "-env", "DELTAFS_Db_compression", "1"]
        lines = self.client("run3-write", ["--db=%s/run3/origin" % self.root, "--share_dir=1", "--n=%d" % N,
                                           "--read_phases=0", "--skip_fs_checks=1", "--fs_use_local=1"], write_env)
        self.assertEqual(lines, {"insert": 4 * N})
        job = self.s.start("run3-compact", 4, "deltameta_compactor",
                           ["--src_dir=%s/run3/origin" % self.root, "--dst_dir=%s/run3/compact" % self.root,
                            "--rpc_async_sender_threads=16", "--rpc_worker_threads=0", "--rpc_batch_min=4",
                            "--rpc_batch_max=8", "--rpc_threads=2"],
                           mpi_args=["-env", "DELTAFS_Db_disable_write_ahead_logging", "1",
                                     "-env", "DELTAFS_Db_compression", "1"])
        self.assertEqual(job.wait(120), 0, job.stderr())
        self.assertEqual(harness.result_lines(job.stdout()), {"mapreduce": 4 * N})
        svr = self.servers("run3-svr", 4, ["--use_existing_fs=1", "--db=%s/run3/compact" % self.root,
                                           "--skip_fs_checks=0", "--ports_per_rank=1", "--rpc_threads=2"])
        lines = self.client("run3-read", ["--use_existing_fs=1", "--share_dir=1", "--n=%d" % N, "--write_phases=0",
                                          "--read_phases=1", "--info_svr_uri=tcp://127.0.0.1:10086",
                                          "--skip_fs_checks=0"])
        self.assertEqual(lines, {"fstats": 4 * N})
        self.interrupt(svr)


def own_network_namespace():
    """Re-runs this file in a new network namespace with loopback up, where unshare may make one."""
    if os.environ.get("DELTAMETA_OWN_NETWORK") or not (shutil.which("unshare") and shutil.which("ip")):
        return
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode != 0:
        print("test_guide_commands: no network namespace allowed here: port 10086 of this machine's loopback is used",
              file=sys.stderr)
        return
    os.environ["DELTAMETA_OWN_NETWORK"] = "1"
    os.execvp("unshare", ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', sys.executable,
                          os.path.abspath(__file__), *sys.argv[1:]])


if __name__ == "__main__":
    own_network_namespace()
    unittest.main()
