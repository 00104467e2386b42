# runs.py's stores in RADOS: a deltameta_storage that fails is named in one line with how it
# ended (its exit status, or the signal that killed it) and its last line of output, so a
# crash with nothing on stderr still says what happened.
import os
import shutil
import tempfile
import unittest

import runs
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
            self.storage(script).clear("rados://pool/prefix/x")
        return str(caught.exception)

    def test_a_crash_with_no_output_names_its_signal(self):
        self.assertIn("deltameta_storage rm rados://pool/prefix/x failed (killed by signal 11): no output",
                      self.failure("kill -SEGV $$"))

    def test_an_error_gives_its_exit_status_and_last_line(self):
        self.assertIn("failed (exit 1): deltameta_storage: error: no such pool",
                      self.failure("echo first >&2; echo 'deltameta_storage: error: no such pool' >&2; exit 1"))


if __name__ == "__main__":
    unittest.main()
