# deltameta_storage rm removes only what deltameta wrote: a tree of stores a job made goes,
# with a count (and --dry-run only counts); the working directory, /, a folder with other
# files, and a single store-looking folder that is the working directory are refused, exit 1,
# untouched.
import os
import subprocess
import unittest

import harness
from harness import flags

TOOL = os.path.join(harness.BIN, "deltameta_storage")


def storage(*args, cwd=None):
    return subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=60, cwd=cwd)


class StorageTool(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)

    def test_removes_what_a_job_wrote_and_counts_it(self):
        origin = self.s.path("origin")
        r = self.s.run("write", 2, "deltameta_client_store",
                       flags(db=origin, share_dir=1, n=500, read_phases=0, skip_fs_checks=1, fs_use_local=1),
                       {"DELTAFS_Db_disable_compaction": 1})
        self.assertEqual(r.rc, 0, r)
        files = sum(len(fs) for _, _, fs in os.walk(origin))
        dry = storage("rm", "--dry-run", origin)
        self.assertEqual(dry.returncode, 0, dry.stderr)
        self.assertEqual(dry.stdout, "would remove %d files in 2 stores at %s\n" % (files, origin))
        self.assertTrue(os.path.isdir(origin))
        res = storage("rm", origin)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(res.stdout, "removed %d files in 2 stores at %s\n" % (files, origin))
        self.assertFalse(os.path.exists(origin))

    def test_refuses_anything_else(self):
        work = self.s.path("work")
        os.makedirs(os.path.join(work, "data"))
        with open(os.path.join(work, "data", "keep.txt"), "w") as f:
            f.write("mine")
        for target, cwd in ((".", work), ("/", work), (work, None), (os.path.join(work, "data"), None)):
            res = storage("rm", target, cwd=cwd)
            self.assertEqual(res.returncode, 1, (target, res))
            lines = res.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, res.stderr)
            self.assertIn("is not a tree of deltameta stores", lines[0])
            self.assertTrue(lines[0].endswith("nothing was removed"), lines[0])
        self.assertTrue(os.path.exists(os.path.join(work, "data", "keep.txt")))


if __name__ == "__main__":
    unittest.main()
