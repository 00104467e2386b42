"""The storage floor's fio jobs (rule storage_floor, workflows/rules/floor.smk), derived from
the store settings the runs use: what sizes the stores write and read, and the fio job file
that writes and then reads objects of those sizes. Pure functions, unit-tested by
tests/workflow/test_floor.py.

Sizes (core/README.md, "Store settings"; DELTAFS_Db_* keys of `store_settings` override
the defaults): table files of `table_size` written in `block_size` requests, the write-ahead
log appended `write_ahead_log_buffer` bytes at a time into files of about one memtable
(`memtable_size`), lookups reading one `block_size` block, compactions reading whole table
files. On RADOS a file is striped over objects of DELTAMETA_RADOS_CHUNK_BYTES
(core/doc/storage.md), so each fio file is one object of at most that size."""
import math
from typing import NamedTuple

PREFIX = "DELTAFS_Db_"
DEFAULT_CHUNK_BYTES = 4 << 20  # DELTAMETA_RADOS_CHUNK_BYTES's default
DEFAULTS = {  # core/README.md, "Store settings" (core/src/store/store_options.h)
    "memtable_size": 8 << 20,
    "table_size": 4 << 20,
    "block_size": 4 << 10,
    "write_ahead_log_buffer": 64 << 10,
    "disable_write_ahead_logging": 0,
    "block_cache_size": 0,
}
READ_RUNTIME_S = 30  # a read job stops after this long: a floor needs a rate, not every byte


class Job(NamedTuple):
    name: str  # fio's job name, also the operation the floor is of
    operation: str  # what it stands for, in the table
    rw: str
    bs: int  # bytes per request
    filesize: int  # bytes per file (posix) or object (rados)
    nrfiles: int
    files: str  # the files it works on: a write job's name, which the read jobs read


def store_sizes(store_settings):
    """The sizes the stores write with `store_settings` (config key: {DELTAFS_Db_<name>: value})."""
    sizes = dict(DEFAULTS)
    for key, value in (store_settings or {}).items():
        name = key[len(PREFIX):] if key.startswith(PREFIX) else key
        if name in sizes:
            sizes[name] = int(value)
    return sizes


def plan(store_settings, data_bytes, storage, chunk_bytes=DEFAULT_CHUNK_BYTES):
    """The jobs, in the order fio runs them (each waits for the one before: stonewall): the
    writes first, then the reads of what table_write wrote, so that no read is of unstaged data."""
    s = store_sizes(store_settings)
    cap = chunk_bytes if storage == "rados" else None

    def file_of(size):
        return min(size, cap) if cap else size

    def count(filesize):
        return max(1, math.ceil(data_bytes / filesize))

    table = file_of(s["table_size"])
    block = min(s["block_size"], table)
    jobs = [Job("table_write", "table write (sequential, block-size requests)", "write", block, table,
                count(table), "table_write")]
    if not s["disable_write_ahead_logging"]:
        log = file_of(s["memtable_size"])
        # a buffer of 0 flushes every write: requests of about one entry, below fio's useful sizes;
        # the block size stands in for it
        append = min(s["write_ahead_log_buffer"] or s["block_size"], log)
        jobs.append(Job("log_append", "log append (write-ahead-log buffer)", "write", append, log, count(log),
                        "log_append"))
    jobs.append(Job("lookup_read", "lookup (random block reads of staged tables)", "randread", block, table,
                    count(table), "table_write"))
    jobs.append(Job("compaction_read", "compaction input (whole-file reads of staged tables)", "read", table,
                    table, count(table), "table_write"))
    return jobs


def object_names(jobs, prefix):
    """The exact names of every file or object the jobs make: `prefix` + write job + file number."""
    return [f"{prefix}{job.name}.{i}" for job in jobs if job.rw == "write" for i in range(job.nrfiles)]


def job_file(jobs, storage, prefix, directory="", pool="", conf="", client="admin"):
    """fio's job file: on posix files in `directory`, on rados objects in `pool` of the cluster
    of `conf`; every file named `prefix` + write job + number."""
    lines = ["; the storage floor: written by workflows/floor/jobs.py", "[global]"]
    if storage == "rados":
        lines += ["ioengine=rados", f"pool={pool}", f"conf={conf}", f"clientname={client}"]
    else:
        lines += ["ioengine=psync", f"directory={directory}"]
    for job in jobs:
        lines += ["", f"[{job.name}]", "stonewall", f"rw={job.rw}", f"bs={job.bs}", f"filesize={job.filesize}",
                  f"nrfiles={job.nrfiles}", f"size={job.filesize * job.nrfiles}",
                  f"filename_format={prefix}{job.files}.$filenum"]
        if job.rw == "write":
            lines.append("end_fsync=1" if storage != "rados" else "touch_objects=1")
        else:
            lines += [f"runtime={READ_RUNTIME_S}", "allow_file_create=0"]
            if storage == "rados":
                lines.append("touch_objects=0")
    return "\n".join(lines) + "\n"
