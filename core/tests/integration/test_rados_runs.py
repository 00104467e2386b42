# The three runs of test_three_runs with every store and table in Ceph RADOS
# (rados://POOL/...), verified exactly like the local runs. ctest starts the cluster and
# sets CEPH_CONF; the pool is $CEPH_POOL or "deltameta".
import os
import subprocess
import unittest

import test_three_runs
from harness import flags

POOL = os.environ.get("CEPH_POOL", "deltameta")


def rados(*args):
    return subprocess.run(["rados", "-p", POOL] + list(args), capture_output=True, text=True, timeout=180, check=True)


class RadosRuns(test_three_runs.ThreeRuns):
    def store(self, *parts):
        return "rados://%s/%s/%s" % (POOL, self.s.tag, "/".join(parts))

    def test_stores_are_rados_objects(self):
        """The write phase's stores are directories in the pool, seen by another client (the rados tool)."""
        w = self.s.client("write", 4, flags(db=self.store("w"), n=100, read_phases=0, fs_use_local=1))
        self.assertEqual(w.rc, 0, w)
        top = rados("listomapkeys", "dir:/%s/w" % self.s.tag).stdout.split()
        self.assertEqual(top, ["r0", "r1", "r2", "r3"])
        r0 = rados("listomapkeys", "dir:/%s/w/r0" % self.s.tag).stdout.split()
        self.assertIn("CURRENT", r0)
        self.assertIn("DELTAMETA-LAYOUT", r0)
        self.assertFalse(os.path.exists(self.store("w")))


if __name__ == "__main__":
    unittest.main()
