"""Reads and checks the MD-Workbench runs' results (rule mdworkbench: one JSON Lines file per
run, one document per phase, core/doc/mdworkbench.md). A run's coordinates are those its
documents record (`coordinates`: core/bench/runs.py's coordinates(), the parameters the rule
gave it); from them follows what every phase must have done:
  precreate  creates ranks x data sets x precreated objects
  benchmark  ranks x iterations x data sets x objects per set objects, each a stat, a read
             (its bytes checked), a delete and a create in its place; DeltaFS serves only the
             stat and the read and says so (not_served: create, delete). With a stonewall
             (-w, coordinate stonewall > 0) the positions each rank ran in each iteration
             (positions_run: at least 1, at most I; with wear-out the same on every
             rank) times the data sets; without, every entry of positions_run is I
  cleanup    deletes the precreated number again (not run on DeltaFS, read-only by design)
  compaction (DeltaFS only) the parallel compactor's pass over every precreated object
and every verification count (missing, mismatched attributes, wrong bytes, deleted objects
still found, failures) must be zero."""
import json

from workflows.registry import MDWB_OPS
from workflows.results.runs import QUANTILES

SERVED = {"posix": MDWB_OPS, "indexfs": MDWB_OPS, "deltafs": ("stat", "read"), "cephfs": MDWB_OPS}
VERIFICATION = ("failed", "missing", "mismatched", "wrong_bytes", "deleted_still_found")
COLUMNS = ["interface", "storage", "phase", "op", "repetition", "ranks", "count", "errors", "elapsed_s", "op_rate",
           "obj_rate"] + [f"lat_{q}_us" for q in QUANTILES]


def coordinates(docs):
    """The run's coordinates, as its phase documents `docs` record them, named as the
    wildcards of its rule (registry.py MDWORKBENCH)."""
    doc = next(iter(docs.values()))
    c = doc["coordinates"]
    return dict(backend=doc["storage"]["backend"], interface=c["interface"], ranks=c["client_ranks"],
                servers=c["servers"], dsets=c["data_sets"], precreate=c["precreate"], objects=c["objects"],
                size=c["object_size"], iterations=c["iterations"], offset=c["offset"], stonewall=c["stonewall"],
                wearout=int(c["wear_out"]), rep=c["repetition"])


def read(path):
    """The phase documents of a result file, by phase; ValueError naming the file if malformed."""
    docs = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                doc = json.loads(line)
                docs[doc["phase"]] = doc
            except (ValueError, KeyError, TypeError) as e:
                raise ValueError(f"{path}:{number}: not a phase document ({e})") from e
    if not docs:
        raise ValueError(f"{path} holds no phase results")
    try:
        coordinates(docs)
    except (KeyError, TypeError) as e:
        raise ValueError(f"{path}: no run coordinates ({e!r}): rerun it") from None
    return docs


def positions_problems(where, positions):
    """How a benchmark's positions_run (per iteration, per rank) breaks the run's parameters. A
    tool from before the stonewall (deltameta 0.4.0 and older) records none: without a
    stonewall it ran every position, which the counts then check."""
    if positions is None and not where["stonewall"]:
        return []
    shape = [len(p) for p in positions] if isinstance(positions, list) else None
    if shape != [where["ranks"]] * where["iterations"] or not all(isinstance(p, list) for p in positions):
        return [f"positions_run {positions} is not {where['iterations']} iterations x {where['ranks']} ranks"]
    found = []
    for i, ran in enumerate(positions, 1):
        if not where["stonewall"] and any(k != where["objects"] for k in ran):
            found.append(f"iteration {i} ran {ran} positions without a stonewall, expected {where['objects']} each")
        elif any(not 1 <= k <= where["objects"] for k in ran):
            found.append(f"iteration {i} ran {ran} positions, expected 1 to {where['objects']} each")
        elif where["wearout"] and len(set(ran)) > 1:
            found.append(f"iteration {i} ran {ran} positions with wear-out, expected the same on every rank")
    return found


def benchmarked(where, docs):
    """Objects the benchmark handled: with a stonewall, as many as the positions its document
    says each rank ran (when they are valid); otherwise what the parameters imply."""
    positions = (docs or {}).get("benchmark", {}).get("positions_run")
    if where["stonewall"] and not positions_problems(where, positions):
        return where["dsets"] * sum(sum(ran) for ran in positions)
    return where["ranks"] * where["iterations"] * where["dsets"] * where["objects"]


def expected(where, docs=None):
    """{phase: (objects, {op: count})} that the run's parameters (and with a stonewall the
    positions its benchmark document says it ran) imply."""
    precreated = where["ranks"] * where["dsets"] * where["precreate"]
    benchmarked_objects = benchmarked(where, docs)
    served = SERVED[where["interface"]]
    phases = {"precreate": (precreated, {"create": precreated}),
              "benchmark": (benchmarked_objects, {op: benchmarked_objects for op in served})}
    if where["interface"] == "deltafs":
        phases["compaction"] = (precreated, None)
    else:
        phases["cleanup"] = (precreated, {"delete": precreated})
    return phases


def problems(docs):
    """Every way the run with phase documents `docs` falls short, as sentences."""
    where = coordinates(docs)
    run = f"MD-Workbench {where['interface']} repetition {where['rep']}"
    found = []
    for phase, (objects, ops) in expected(where, docs).items():
        doc = docs.get(phase)
        if doc is None:
            found.append(f"{run}: no {phase} phase")
            continue
        if ops is None:  # the compactor's own document (deltameta.phase/1)
            if doc["ops"] != objects:
                found.append(f"{run} {phase}: {doc['ops']} entries compacted, expected {objects}")
            if doc["errors"]["total"]:
                found.append(f"{run} {phase}: {doc['errors']['total']} errors")
            continue
        found += phase_problems(run, phase, doc, objects, ops, where)
    if "benchmark" in docs:
        found += [f"{run} benchmark: {p}" for p in positions_problems(where, docs["benchmark"].get("positions_run"))]
    extra = sorted(set(docs) - set(expected(where)))
    if extra:
        found.append(f"{run}: unexpected phase(s) {', '.join(extra)}")
    return found


def phase_problems(run, phase, doc, objects, ops, where):
    what, found = f"{run} {phase}", []
    if doc.get("interface") != where["interface"]:
        found.append(f"{what}: ran on interface {doc.get('interface')}, not {where['interface']}")
    if doc["ranks"] != where["ranks"]:
        found.append(f"{what}: {doc['ranks']} ranks, expected {where['ranks']}")
    if doc["objects"] != objects:
        found.append(f"{what}: {doc['objects']} objects, expected {objects}")
    by_type = doc["ops_by_type"]
    counts = {op: by_type[op]["count"] for op in by_type}
    if counts != ops:
        found.append(f"{what}: op counts {counts}, expected {ops}")
    if doc["ops"] != sum(ops.values()):
        found.append(f"{what}: {doc['ops']} ops, expected {sum(ops.values())}")
    if doc["verification"]["expected_ops"] != sum(ops.values()):
        found.append(f"{what}: the tool expected {doc['verification']['expected_ops']} ops, the parameters imply "
                     f"{sum(ops.values())}")
    for op, d in by_type.items():
        if d["errors"]:
            found.append(f"{what}: {d['errors']} {op} errors")
    v = doc["verification"]
    for key in VERIFICATION:
        if v.get(key, 0):
            found.append(f"{what}: {v[key]} {key.replace('_', ' ')}")
    if v.get("total", 0) != sum(v.get(key, 0) for key in VERIFICATION):
        found.append(f"{what}: verification total {v.get('total')} is not the sum of its counts")
    unserved = sorted(set(MDWB_OPS) - set(SERVED[where["interface"]])) if phase == "benchmark" else []
    if sorted(doc.get("not_served", [])) != unserved:
        found.append(f"{what}: not_served {doc.get('not_served', [])}, expected {unserved}")
    if doc["elapsed_s"] <= 0 or doc["op_rate"] <= 0:
        found.append(f"{what}: no rate measured")
    return found


def rows(docs):
    """One row per phase x op type of a run (COLUMNS)."""
    where = coordinates(docs)
    for phase, doc in docs.items():
        for op, d in doc.get("ops_by_type", {}).items():
            lat = d["latency_us"] or {}
            yield dict(interface=where["interface"], storage=where["backend"], phase=phase, op=op,
                       repetition=where["rep"], ranks=where["ranks"], count=d["count"], errors=d["errors"],
                       elapsed_s=doc["elapsed_s"], op_rate=doc["op_rate"], obj_rate=doc["obj_rate"],
                       **{f"lat_{q}_us": lat.get(q, "") for q in QUANTILES})
