# deltameta_mdworkbench's cephfs interface at test_mdworkbench.py's scale, on the MDS of
# ctest's shared cluster (CEPH_CONF set by ctest): runs.py mdworkbench --interface cephfs
# (its documents, their counts, zero verification errors, the tree's data sets gone after
# the cleanup, no process left), and the interface's verification of faults put into
# CephFS between its phases through a mount of the test's own (cephfs_access.py): changed
# bytes, a changed mode, a removed file.
import unittest

import cephfs_access
import test_mdworkbench as mdwb
from harness import flags


class MdwbCephfsTest(mdwb.MdwbBase):
    def setUp(self):
        super().setUp()
        self.fs = cephfs_access.Cephfs()
        self.addCleanup(self.fs.close)

    def test_cephfs_through_runs(self):
        rc, err, docs, work = self.runs("cephfs", "--process-reports")
        self.assertEqual(rc, 0, err)
        self.check_three_phases(docs, "cephfs")
        for d in docs:
            self.assertIsNone(d["parameters"]["inline_data_max"])
            self.assertEqual(d["cephfs_root"], "/deltameta-mdworkbench" + work)
        # The cleanup removed every data set: the run's directory is empty.
        self.fs.rmdir(docs[0]["cephfs_root"])

    def test_cephfs_changed_bytes_mode_and_a_removed_file_are_reported(self):
        root = "/%s" % self.s.tag
        tree = flags(interface="cephfs", root=root)
        r = self.tool("precreate", tree + ["-1"])
        self.assertEqual(r.rc, 0, r)
        self.fs.flip_byte(mdwb.object_path(root, 1, 0, 3), 100)  # handled by rank 0 in iteration 0
        self.fs.chmod(mdwb.object_path(root, 2, 1, 17), 0o600)   # rank 1, iteration 1
        self.fs.unlink(mdwb.object_path(root, 0, 1, 12))          # rank 2
        r = self.tool("benchmark", tree + ["-2", "--process-reports"])
        self.assertEqual(r.rc, 1, r)
        v = r.docs[0]["verification"]
        # The removed object's stat, read and delete each find it missing.
        self.assertEqual({k: v[k] for k in mdwb.VERIFICATION + ["total"]},
                         dict(failed=0, missing=3, mismatched=1, wrong_bytes=1, deleted_still_found=0, total=5))
        self.assertEqual({op: t["errors"] for op, t in r.docs[0]["ops_by_type"].items()},
                         dict(create=0, stat=2, read=2, delete=1))
        self.assertEqual([p["errors"] for p in r.docs[0]["per_rank"]], [1, 1, 3])
        self.assertIn("deltameta_mdworkbench: error: verification failed: benchmark: 3 missing, 1 mismatched, "
                      "1 wrong_bytes", r.err)
        cleanup = self.tool("cleanup", tree + ["-3"])
        self.assertEqual(cleanup.rc, 0, cleanup)
        self.fs.rmdir(root)

    def test_cephfs_needs_an_absolute_root_and_names_a_missing_file_system(self):
        r = self.s.run("relative", 1, "deltameta_mdworkbench", flags(interface="cephfs", root="tree"), json=False)
        self.assertEqual(r.rc, 2, r)
        self.assertIn("--interface=cephfs needs --root, an absolute path below / in CephFS", r.err)
        r = self.tool("no-such-fs", flags(interface="cephfs", root="/x", cephfs_name="nosuchfs"), ranks=1)
        self.assertEqual(r.rc, 1, r)
        self.assertIn("has no CephFS file system nosuchfs: name one `ceph fs ls` lists", r.err)


if __name__ == "__main__":
    unittest.main()
