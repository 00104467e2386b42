"""Each research design's phase's bytes per second (not CephFS's, the production baseline:
registry.DESIGNS) beside the storage floor of the operation it does (rule
floor, floor/report.py): the floors from fio's JSON (rule storage_floor), the phases from
summary.csv. The runs record operations and times, not bytes, so a phase's bytes are
measured where its store is on disk and kept (DeltaFS's origin stores on posix), estimated
where a stated rule gives them, and otherwise unknown; every row says which."""
import json
import os
import statistics

from workflows.floor.jobs import store_sizes
from workflows.registry import DESIGNS, PHASES, SYSTEMS
from workflows.results.runs import result_file

# The floor each phase is compared with: inserts append to the write-ahead log, bulk
# insertion writes tables, the compaction reads whole tables and writes new ones, lstats
# read one block each.
FLOOR_OF_PHASE = {"insert": "log_append", "compaction": "compaction", "lstat": "lookup_read"}
FLOOR_OF = {("indexfs-bulk", "insert"): "table_write"}
OPERATIONS = {"compaction": "compaction (whole-file reads + table writes of the same bytes)"}
STORE_FILES = (".sst", ".log")  # a store's tables and write-ahead logs (not RocksDB's own LOG, MANIFEST...)
# The DeltaFS write phase's result, beside the origin stores it made (rules/floor.smk).
WRITE_RESULT = os.path.basename(SYSTEMS["deltafs"].results["deltafs_write"].path)


def floors(fio_doc, floor_doc):
    """{floor name: (bytes/s, operation)} from fio's jobs, plus the compaction's: reading and
    writing the same bytes one after the other, 1 / (1/read + 1/write)."""
    ops = {j["name"]: j["operation"] for j in floor_doc["jobs"]}
    out = {}
    for job in fio_doc["jobs"]:
        side = "write" if job["job options"]["rw"] == "write" else "read"
        out[job["jobname"]] = (float(job[side]["bw_bytes"]), ops.get(job["jobname"], job["jobname"]))
    if "log_append" not in out:
        out["log_append"] = out["table_write"]  # no write-ahead log: inserts reach storage as tables
    r, w = out["compaction_read"][0], out["table_write"][0]
    out["compaction"] = (1 / (1 / r + 1 / w) if r > 0 and w > 0 else 0.0, OPERATIONS["compaction"])
    return out


def store_bytes(path):
    """(table bytes, table + log bytes) of a store tree on disk."""
    tables = logs = 0
    for dirpath, _, files in os.walk(path):
        for name in files:
            size = os.path.getsize(os.path.join(dirpath, name))
            tables += size if name.endswith(".sst") else 0
            logs += size if name.endswith(".log") else 0
    return tables, tables + logs


def origin_sizes(paths):
    """{(client ranks, files per rank, repetition): (table bytes, table + log bytes)} of DeltaFS
    origin stores, each beside the write phase's result that made it, which records its run's
    coordinates."""
    out = {}
    for path in paths:
        where = result_file(os.path.join(os.path.dirname(path.rstrip("/")), WRITE_RESULT))[0]
        out[where["client_ranks"], where["files_per_rank"], where["repetition"]] = store_bytes(path)
    return out


def phase_bytes(row, origins, per_entry, sizes, storage):
    """(bytes, how they are known) of one summary row; bytes None when they cannot be known."""
    system, phase = row["system"], row["phase"]
    origin = origins.get((row["client_ranks"], row["files_per_rank"], row["repetition"]))
    if phase == "lstat":
        if sizes["block_cache_size"]:
            return None, "unknown: a block cache serves some lookups without reading storage"
        return row["ops"] * sizes["block_size"], "estimate: one block_size read per lookup (no block cache)"
    if system == "deltafs" and origin:
        if phase == "insert":
            return origin[1], "measured: the origin stores' table and log files on disk"
        return origin[0], "measured: the origin stores' tables on disk (the compaction's input)"
    if phase == "insert" and per_entry:
        return row["ops"] * per_entry, "estimate: ops x bytes per entry of the DeltaFS origin stores' tables"
    where = "in RADOS, not measured" if storage == "rados" else "not kept or not run"
    return None, f"unknown: the runs record no bytes and the stores are {where}"


def rows(summary, fio_doc, floor_doc, origin_paths):
    """One row per system x phase x client ranks x files per rank: median bytes/s over
    repetitions and its floor."""
    floor = floors(fio_doc, floor_doc)
    sizes = store_sizes(floor_doc["store_settings"])
    origins = origin_sizes(origin_paths)
    entries = {(r["client_ranks"], r["files_per_rank"], r["repetition"]): r["ops"] for r in summary
               if r["system"] == "deltafs" and r["phase"] == "insert"}
    per_entry = [origins[k][0] / entries[k] for k in origins if entries.get(k)]
    per_entry = statistics.median(per_entry) if per_entry else None
    out = []
    for system in DESIGNS:  # their stores' operations; CephFS's MDS journals in RADOS its own way
        for phase in PHASES:
            for ranks, n in sorted({(r["client_ranks"], r["files_per_rank"]) for r in summary}):
                pts = [r for r in summary if (r["system"], r["phase"]) == (system, phase)
                       and (r["client_ranks"], r["files_per_rank"]) == (ranks, n)]
                if not pts:
                    continue
                known = [(b, r["elapsed_s"], how) for r in pts
                         for b, how in [phase_bytes(r, origins, per_entry, sizes, floor_doc["storage"])]]
                how = known[0][2]
                rates = [b / t for b, t, _ in known if b is not None and t > 0]
                name = FLOOR_OF.get((system, phase), FLOOR_OF_PHASE[phase])
                floor_bps, operation = floor[name]
                bps = statistics.median(rates) if rates and len(rates) == len(pts) else None
                out.append({
                    "system": system, "phase": phase, "storage": floor_doc["storage"], "client_ranks": ranks,
                    "files_per_rank": n, "repetitions": len(pts),
                    "bytes": statistics.median(b for b, _, _ in known) if bps is not None else "",
                    "bytes_per_s": bps if bps is not None else "", "floor": name, "floor_operation": operation,
                    "floor_bytes_per_s": floor_bps,
                    "fraction_of_floor": bps / floor_bps if bps is not None and floor_bps > 0 else "",
                    "bytes_from": how})
    return out


def load_json(path):
    with open(path) as f:
        return json.load(f)
