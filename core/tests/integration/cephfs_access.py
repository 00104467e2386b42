# Direct access to a CephFS for tests that change what a tool wrote behind its back: a
# mount through libcephfs itself (ctypes on libcephfs.so.2, the library the tools load), on
# the cluster of CEPH_CONF, as root. Each call fails the test's step with the errno's name.
import ctypes
import errno
import os

_lib = ctypes.CDLL("libcephfs.so.2")
_lib.ceph_write.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64]
_lib.ceph_read.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64]
for _name in ("ceph_conf_read_file", "ceph_mount", "ceph_open", "ceph_close", "ceph_chmod", "ceph_unlink",
              "ceph_rmdir", "ceph_unmount", "ceph_release"):
    getattr(_lib, _name).argtypes = [ctypes.c_void_p] + {
        "ceph_conf_read_file": [ctypes.c_char_p], "ceph_mount": [ctypes.c_char_p],
        "ceph_open": [ctypes.c_char_p, ctypes.c_int, ctypes.c_int], "ceph_close": [ctypes.c_int],
        "ceph_chmod": [ctypes.c_char_p, ctypes.c_int], "ceph_unlink": [ctypes.c_char_p],
        "ceph_rmdir": [ctypes.c_char_p]}.get(_name, [])


def _check(r, what):
    if r < 0:
        raise OSError(-r, "%s: %s" % (what, errno.errorcode.get(-r, -r)))
    return r


class Cephfs:
    """A mount of the default file system of the cluster of CEPH_CONF; close() unmounts."""

    def __init__(self):
        self.m = ctypes.c_void_p()
        _check(_lib.ceph_create(ctypes.byref(self.m), None), "ceph_create")
        _check(_lib.ceph_conf_read_file(self.m, os.environ["CEPH_CONF"].encode()), "ceph_conf_read_file")
        _check(_lib.ceph_mount(self.m, b"/"), "ceph_mount")

    def close(self):
        _lib.ceph_unmount(self.m)
        _lib.ceph_release(self.m)

    def flip_byte(self, path, offset):
        """Inverts the byte at `offset` of file `path`."""
        fd = _check(_lib.ceph_open(self.m, path.encode(), os.O_RDWR, 0), "open " + path)
        try:
            byte = ctypes.create_string_buffer(1)
            _check(_lib.ceph_read(self.m, fd, byte, 1, offset), "read " + path)
            _check(_lib.ceph_write(self.m, fd, bytes([byte.raw[0] ^ 0xFF]), 1, offset), "write " + path)
        finally:
            _lib.ceph_close(self.m, fd)

    def chmod(self, path, mode):
        _check(_lib.ceph_chmod(self.m, path.encode(), mode), "chmod " + path)

    def unlink(self, path):
        _check(_lib.ceph_unlink(self.m, path.encode()), "unlink " + path)

    def rmdir(self, path):
        """Removes directory `path`, which must be empty."""
        _check(_lib.ceph_rmdir(self.m, path.encode()), "rmdir " + path)
