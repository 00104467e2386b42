"""/dev/shm, where MPI's shared-memory transport keeps its segments between the ranks of a
node: its size and free space (statvfs), or None where there is no /dev/shm."""
import os

SHM = "/dev/shm"


def dev_shm(path=SHM):
    """{"size_bytes", "free_bytes"} of the file system at `path` (free: what an unprivileged
    process may still allocate there), or None if it does not exist."""
    try:
        st = os.statvfs(path)
    except FileNotFoundError:
        return None
    return {"size_bytes": st.f_blocks * st.f_frsize, "free_bytes": st.f_bavail * st.f_frsize}
