"""File systems: which one holds a path (its type and mount point, from
/proc/self/mountinfo: the longest mount point that is a prefix of the path's real path)
and its kind for a measurement, from a small table of types (KINDS), so that conditions
can name the kinds they accept."""
import os
import re

LOCAL_DISK, TMPFS, OVERLAY_OR_FUSE, NETWORK, UNKNOWN = "local disk", "tmpfs", "overlay or FUSE", "network", "unknown"
# File system type -> kind. Types not listed: fuse.* is overlay or FUSE, anything else unknown.
KINDS = {
    **dict.fromkeys(("ext2", "ext3", "ext4", "xfs", "btrfs", "zfs", "f2fs", "jfs", "bcachefs"), LOCAL_DISK),
    **dict.fromkeys(("tmpfs", "ramfs"), TMPFS),
    **dict.fromkeys(("overlay", "aufs", "fuse", "fuseblk"), OVERLAY_OR_FUSE),
    # a remote server's; 9p and virtiofs are a host's folders shared into a VM (WSL, Docker
    # Desktop), with the same round trips per operation
    **dict.fromkeys(("nfs", "nfs4", "cifs", "smb3", "ceph", "lustre", "gpfs", "beegfs", "glusterfs", "9p",
                     "virtiofs", "fuse.ceph-fuse", "fuse.glusterfs", "fuse.sshfs", "fuse.s3fs"), NETWORK),
}


def kind(fs_type):
    """The kind (LOCAL_DISK, TMPFS, OVERLAY_OR_FUSE, NETWORK or UNKNOWN) of a file system type."""
    if fs_type in KINDS:
        return KINDS[fs_type]
    return OVERLAY_OR_FUSE if fs_type.startswith("fuse.") else UNKNOWN


def _unescape(field):
    """A mountinfo path with the kernel's octal escapes (\\040 for a space) decoded."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def mounts(mountinfo_text):
    """[(mount point, file system type, source)] of every line of a mountinfo text, in its order
    (a later mount on the same point hides an earlier one)."""
    out = []
    for line in mountinfo_text.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        fields, after = left.split(), right.split()
        out.append((_unescape(fields[4]), after[0], _unescape(after[1]) if len(after) > 1 else ""))
    return out


def mount_of(real_path, mountinfo_text):
    """{"mount_point", "fs_type", "source", "kind"} of the mount holding `real_path` (absolute,
    symbolic links resolved)."""
    best = None
    for point, fs_type, source in mounts(mountinfo_text):
        inside = real_path == point or real_path.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= len(best[0])):
            best = (point, fs_type, source)
    if best is None:
        raise ValueError(f"no mount holds {real_path}")
    return {"mount_point": best[0], "fs_type": best[1], "source": best[2], "kind": kind(best[1])}


def file_system(path):
    """mount_of `path` on this machine, plus "path": its real path. A path that does not exist
    yet is on the file system it would be created on."""
    real = os.path.realpath(path)
    with open("/proc/self/mountinfo") as f:
        return {"path": real, **mount_of(real, f.read())}
