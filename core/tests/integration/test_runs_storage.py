# runs.py's stores: a deltameta_storage that fails is named in one line with how it ended
# (its exit status, or the signal that killed it) and its last line of output, so a crash
# with nothing on stderr still says what happened; local stores are removed with the same
# tool, which removes a store a job wrote and keeps (failing the run) anything else.
import os
import shutil
import tempfile
import unittest

import harness
import runs
from harness import flags
from mpijobs import JobError, Launcher


class StorageToolFailures(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="runs-storage-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def storage(self, script):
        tool = os.path.join(self.dir, "deltameta_storage")
        with open(tool, "w") as f:
            f.write("#!/bin/sh\n" + script + "\n")
        os.chmod(tool, 0o755)
        log = open(os.path.join(self.dir, "log"), "w")
        self.addCleanup(log.close)
        return runs.Storage(Launcher(self.dir), log, 30, "rados://pool/prefix", self.dir)

    def failure(self, script):
        with self.assertRaises(JobError) as caught:
            self.storage(script).remove("rados://pool/prefix/x")
        return str(caught.exception)

    def test_a_crash_with_no_output_names_its_signal(self):
        self.assertIn("deltameta_storage rm rados://pool/prefix/x failed (killed by signal 11): no output",
                      self.failure("kill -SEGV $$"))

    def test_an_error_gives_its_exit_status_and_last_line(self):
        self.assertIn("failed (exit 1): deltameta_storage: error: no such pool",
                      self.failure("echo first >&2; echo 'deltameta_storage: error: no such pool' >&2; exit 1"))


class LocalStores(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)
        log = open(self.s.path("log"), "w")
        self.addCleanup(log.close)
        self.storage = runs.Storage(harness.LAUNCHER, log, 60)

    def test_a_store_a_job_wrote_is_removed(self):
        origin = self.s.path("origin")
        r = self.s.run("write", 1, "deltameta_client_store",
                       flags(db=origin, share_dir=1, n=100, read_phases=0, skip_fs_checks=1, fs_use_local=1))
        self.assertEqual(r.rc, 0, r)
        self.storage.remove(origin)
        self.assertFalse(os.path.exists(origin))

    def test_a_users_folder_is_kept_and_named(self):
        mine = self.s.path("mine")
        os.makedirs(mine)
        with open(os.path.join(mine, "notes.txt"), "w") as f:
            f.write("keep")
        with self.assertRaises(JobError) as caught:
            self.storage.remove(mine)
        self.assertIn("is not a tree of deltameta stores", str(caught.exception))
        self.assertTrue(os.path.exists(os.path.join(mine, "notes.txt")))


if __name__ == "__main__":
    unittest.main()
