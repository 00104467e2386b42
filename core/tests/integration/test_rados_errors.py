# What users see when RADOS storage goes wrong: an unreachable cluster, a missing config
# or pool, a bad setting, librados missing, a table object that is gone. Each must end the
# job with a one-line error naming the problem, a non-zero exit, and no hang. ctest starts
# the shared cluster and sets CEPH_CONF; nothing here fills or breaks it (a full object
# store and a lost OSD are in test_rados_faults.py, on clusters of their own).
import os
import shutil
import subprocess
import unittest

import harness
from harness import flags

POOL = os.environ.get("CEPH_POOL", "deltameta")


def rados(conf, *args, timeout=60):
    return subprocess.run(["rados", "-c", conf, "-p", POOL] + list(args), capture_output=True, text=True,
                          timeout=timeout)


class RadosErrors(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)

    def write(self, name, db, env=None, n=100, timeout=60):
        return self.s.client(name, 2, flags(db=db, n=n, read_phases=0, fs_use_local=1), env=env, timeout=timeout)

    def assert_fails(self, r, message, within):
        self.assertNotEqual(r.rc, 0, r)
        self.assertIn(message, r.err, r)
        self.assertLess(r.elapsed, within, r)

    def test_unreachable_cluster_fails_within_the_timeout(self):
        conf = self.s.path("nowhere.conf")
        with open(conf, "w") as f:
            f.write("[global]\nmon host = v2:127.0.0.1:%d\nauth client required = none\n" % harness.refused_port(self))
        r = self.write("nowhere", "rados://%s/x" % POOL, {"CEPH_CONF": conf, "DELTAMETA_RADOS_TIMEOUT": 3})
        self.assert_fails(r, "cannot reach the Ceph cluster of %s within 3 s" % conf, 30)
        self.assertIn("scripts/ceph-cluster.sh start", r.err)

    def test_missing_config_pool_and_bad_settings(self):
        r = self.write("no-conf", "rados://%s/x" % POOL, {"DELTAMETA_RADOS_CONF": self.s.path("missing.conf")})
        self.assert_fails(r, "cannot read %s" % self.s.path("missing.conf"), 30)
        r = self.write("no-pool", "rados://no-such-pool/x")
        self.assert_fails(r, "RADOS pool 'no-such-pool' does not exist: create it", 30)
        r = self.write("bad-timeout", "rados://%s/x" % POOL, {"DELTAMETA_RADOS_TIMEOUT": "soon"})
        self.assert_fails(r, "DELTAMETA_RADOS_TIMEOUT=soon is invalid", 30)
        r = self.write("no-pool-name", "rados:///x")
        self.assert_fails(r, "rados:///x/r0 names no pool: write rados://POOL/PREFIX", 30)

    def test_librados_that_cannot_be_loaded_is_named(self):
        # In a mount namespace of its own the storage tool sees every librados as an empty
        # file, as on a host without librados2: it must say so, not crash.
        libs = sorted({os.path.realpath(os.path.join(d, f)) for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib")
                       if os.path.isdir(d) for f in os.listdir(d) if f.startswith("librados.so")})
        self.assertTrue(libs, "no librados found: run scripts/install-deps.sh")
        hide = " && ".join("mount --bind /dev/null %s" % lib for lib in libs)
        # The privilege is probed by doing exactly that (a namespace of its own may be
        # allowed where mounting in it is not); the mounts end with the namespace.
        if shutil.which("unshare") is None:
            self.skipTest("needs unshare (util-linux) to hide librados in a mount namespace of its own")
        probe = subprocess.run(["unshare", "--mount", "sh", "-c", hide], capture_output=True, text=True, timeout=30)
        if probe.returncode != 0:
            why = (probe.stderr.strip().splitlines() or ["exit code %d" % probe.returncode])[0]
            self.skipTest("needs to bind-mount in a mount namespace of its own (root with CAP_SYS_ADMIN), "
                          "which this user or container may not: %s" % why)
        tool = os.path.join(harness.BIN, "deltameta_storage")
        r = subprocess.run(["unshare", "--mount", "sh", "-c", "%s && exec %s ls rados://%s/x" % (hide, tool, POOL)],
                           capture_output=True, text=True, timeout=60)
        self.assertNotEqual(r.returncode, 0, r)
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn("rados:// needs librados, which cannot be loaded", lines[0])
        self.assertTrue(lines[0].endswith("install librados2"), lines[0])

    def test_a_missing_table_object_is_named(self):
        origin = "rados://%s/%s/origin" % (POOL, self.s.tag)
        self.assertEqual(self.write("write", origin, n=2000).rc, 0)
        conf = os.environ["CEPH_CONF"]
        entries = rados(conf, "listomapvals", "dir:/%s/origin/r1" % self.s.tag).stdout
        tables = [line for line in entries.splitlines() if line.endswith(".sst")]
        self.assertTrue(tables, entries)
        # The directory entry's value is "f:<file id>"; the file's first object is "<file id>.0".
        dump = rados(conf, "getomapval", "dir:/%s/origin/r1" % self.s.tag, tables[0], self.s.path("value")).returncode
        self.assertEqual(dump, 0)
        with open(self.s.path("value")) as f:
            file_id = f.read()[2:]
        self.assertEqual(rados(conf, "rm", file_id + ".0").returncode, 0)
        c = self.s.compactor("compact", 2, flags(src_dir=origin, dst_dir=origin + "-out"))
        self.assert_fails(c, "missing RADOS object %s/%s.0" % (POOL, file_id), 60)


if __name__ == "__main__":
    unittest.main()
