"""The projection model (rule projection, projection.py): each design's throughput from a few
costs measured in this configuration's runs, checked against every configuration measured,
then evaluated at N client nodes up to the paper's scale. A model, not a measurement.
Pure functions; units: microseconds of CPU per operation (us/op), Mop/s, seconds.

Inputs, per system x phase x transport (one host; across hosts when runs spanned several),
from summary.csv and floor.csv:
  c_c   CPU of the phase's client ranks per op: median over runs of cpu_clients_s / ops
        (the compaction's: its compactor ranks' CPU per entry, the shuffle included)
  c_s   CPU of its servers per op: median of cpu_servers_s / ops (0 without servers)
  w     round-trip wait of a synchronous RPC beyond both sides' CPU, from the runs with the
        fewest clients: max(0, k * elapsed_s / ops - c_c - c_s), median over repetitions (it
        also holds t0's share of those runs, t0 / (ops / k) per operation)
  t0    fixed time of the phase (start, final flush, barriers): the median over runs of
        elapsed_s - ops / X (X below), at least 0
  b     bytes per entry the phase moves to or from storage, and F the storage floor of its
        operation (fio, bytes/s), from floor.csv; the storage bound applies only where every
        run stayed at or below the floor (above it, reads came from memory)

Each phase's throughput is the minimum of its bounds (Mop/s, as cores / (us/op)):
  client CPU      X <= min(p_c, C_c) / c_c      p_c client (or compactor) ranks on C_c cores
  server CPU      X <= min(p_s, C_s) / c_s      p_s server ranks on C_s cores
  latency         X <= p_c / (c_c + c_s + w)    synchronous phases: one RPC in flight per client
  storage         X <= F_total / b / 1e6
  shared host     X <= C / (c_c + c_s)          measured runs: every process on one pool of C cores
and a run of `ops` operations takes t0 + ops / (X * 1e6) seconds, so its throughput is
ops / (t0 * 1e6 + ops / X) Mop/s.

Measured runs (validation): C = the cores of the machine that ran them (the Docker
cluster's hosts share one machine's), C_c = C_s = C, F_total = F; w is the one-host
transport's (shared memory) or the across-host one's (TCP), as the run's `hosts` says.

Target (projection): N client nodes of C cores with r ranks each, S server nodes (IndexFS
servers and DeltaFS read-only servers, one server rank per core), so p_c = N r, C_c = N C,
p_s = C_s = S C; no shared-host bound (clients and servers on their own nodes); w = the
across-host round trip if measured, else the configured network round trip; F_total = F
times the nodes whose storage the phase uses (server nodes with servers, else client
nodes) for storage per node, F for one shared storage system. The compaction runs r
compactor ranks per client node. The network's bandwidth is not a bound: at tens of bytes
per entry a 10 Gb/s link carries tens of millions of entries per second per node, above
every CPU bound here.

Validation: each measured configuration (system x phase x transport x client ranks x
servers x files per rank) is predicted twice: with inputs fitted on every run (in sample)
and with inputs fitted without that configuration's runs (held out, where another
configuration remains); the error is predicted / measured median - 1."""
import statistics
from typing import NamedTuple

SYNC_PHASES = {("indexfs", "insert"), ("indexfs", "lstat"), ("indexfs-bulk", "lstat"), ("deltafs", "lstat")}
BOUNDS = ("client CPU", "server CPU", "latency", "storage", "shared host")


class Storage(NamedTuple):
    bytes_per_entry: float | None  # None: unknown
    floor_bytes_per_s: float
    applies: bool  # False where runs went above the floor (served from memory) or bytes are unknown
    note: str


class Inputs(NamedTuple):
    client_cpu_us: float
    server_cpu_us: float
    wait_us: float
    fixed_s: float
    storage: Storage | None
    runs: int


class Target(NamedTuple):
    ranks_per_node: int
    cores_per_node: int
    server_nodes: int
    network_rtt_us: float
    storage: str  # "node" (each node's own, as fast as measured here) or "shared"
    files_per_rank: int


class ModelError(ValueError):
    """The results cannot give the model an input."""


def key(row):
    """(system, phase, across hosts) of a summary row: the unit the inputs are fitted on."""
    return row["system"], row["phase"], int(row.get("hosts") or 1) > 1


def config_of(row):
    """A measured configuration: its key plus client ranks, servers and files per rank."""
    return key(row) + (row["client_ranks"], row["servers"], row["files_per_rank"])


def processes(system, phase, client_ranks, servers):
    """(client-side ranks, server ranks) of a phase: the compaction's ranks are its compactors
    (summary.csv's `servers` of a compaction row), the DeltaFS write phase has no servers."""
    if phase == "compaction":
        return servers, 0
    if system == "deltafs" and phase == "insert":
        return client_ranks, 0
    return client_ranks, servers


def bounds(inp, sync, p_c, p_s, cores_c, cores_s, wait_us, floor_total, shared_cores=None):
    """{bound name: Mop/s} of one phase; `shared_cores` adds the shared-host bound."""
    out = {"client CPU": min(p_c, cores_c) / inp.client_cpu_us}
    if p_s and inp.server_cpu_us > 0:
        out["server CPU"] = min(p_s, cores_s) / inp.server_cpu_us
    if sync:
        out["latency"] = p_c / (inp.client_cpu_us + inp.server_cpu_us + wait_us)
    s = inp.storage
    if s and s.applies:
        out["storage"] = floor_total / s.bytes_per_entry / 1e6
    if shared_cores:
        out["shared host"] = shared_cores / (inp.client_cpu_us + inp.server_cpu_us)
    return out


def throughput(bound, ops, fixed_s):
    """(Mop/s of a run of `ops` operations, the binding bound's name)."""
    name = min(bound, key=bound.get)
    return ops / (fixed_s * 1e6 + ops / bound[name]), name


def measured_bounds(inp, row, cores):
    """The bounds of a measured run (row of summary.csv) on a machine of `cores` cores."""
    p_c, p_s = processes(row["system"], row["phase"], row["client_ranks"], row["servers"])
    floor = inp.storage.floor_bytes_per_s if inp.storage else 0.0
    return bounds(inp, (row["system"], row["phase"]) in SYNC_PHASES, p_c, p_s, cores, cores, inp.wait_us, floor,
                  shared_cores=cores)


def same_point(floor_row, run):
    """Whether a summary row is of a floor.csv row's system, phase, client ranks and (when the
    floor row has it) files per rank."""
    n = floor_row.get("files_per_rank")
    return ((run["system"], run["phase"], run["client_ranks"]) == (floor_row["system"], floor_row["phase"],
                                                                    int(floor_row["client_ranks"]))
            and (n in ("", None) or run["files_per_rank"] == int(n)))


def storage_inputs(floor_rows, summary):
    """{(system, phase): Storage} from floor.csv's rows: bytes per entry = the phase's bytes/s
    over its ops/s (medians of the same configuration)."""
    out = {}
    for sp in sorted({(r["system"], r["phase"]) for r in floor_rows}):
        rows = [r for r in floor_rows if (r["system"], r["phase"]) == sp]
        floor = float(rows[0]["floor_bytes_per_s"])
        per_entry = []
        for r in rows:
            runs = [s for s in summary if same_point(r, s) and s["elapsed_s"] > 0]
            if r["bytes_per_s"] not in ("", None) and runs:
                per_entry.append(float(r["bytes_per_s"]) / statistics.median(s["ops"] / s["elapsed_s"] for s in runs))
        fractions = [float(r["fraction_of_floor"]) for r in rows if r["fraction_of_floor"] not in ("", None)]
        if not per_entry or len(fractions) < len(rows):
            out[sp] = Storage(None, floor, False, f"not applied: bytes {rows[0]['bytes_from']}")
        elif max(fractions) > 1:
            out[sp] = Storage(statistics.median(per_entry), floor, False,
                              f"not applied: runs reached {max(fractions):.1f}x the floor (reads served from memory)")
        else:
            out[sp] = Storage(statistics.median(per_entry), floor, True, f"{rows[0]['floor_operation']}; "
                              f"bytes {rows[0]['bytes_from']}")
    return out


def fit(summary, storage, cores):
    """{key: Inputs} from summary rows (dicts with numbers, as summary_stats.load gives)."""
    out = {}
    for k in sorted({key(r) for r in summary}):
        rows = [r for r in summary if key(r) == k and r["ops"] > 0]
        if not rows:
            raise ModelError(f"{k[0]} {k[1]}: no run with operations")
        c_c = statistics.median(r["cpu_clients_s"] / r["ops"] * 1e6 for r in rows)
        c_s = statistics.median(r["cpu_servers_s"] / r["ops"] * 1e6 for r in rows)
        if c_c <= 0:
            raise ModelError(f"{k[0]} {k[1]}: no client CPU time measured (cpu_clients_s is 0)")
        wait = 0.0
        if k[:2] in SYNC_PHASES:
            fewest = min(r["client_ranks"] for r in rows)
            wait = max(0.0, statistics.median(r["client_ranks"] * r["elapsed_s"] / r["ops"] * 1e6
                                              for r in rows if r["client_ranks"] == fewest) - c_c - c_s)
        inp = Inputs(c_c, c_s, wait, 0.0, storage.get(k[:2]), len(rows))
        residual = [r["elapsed_s"] - r["ops"] / (min(measured_bounds(inp, r, cores).values()) * 1e6) for r in rows]
        out[k] = inp._replace(fixed_s=max(0.0, statistics.median(residual)))
    return out


def predict(inputs, row, cores):
    """(Mop/s, binding bound) the model gives for a measured run's configuration."""
    inp = inputs[key(row)]
    return throughput(measured_bounds(inp, row, cores), row["ops"], inp.fixed_s)


def error(predicted, measured):
    """Relative error of a prediction: predicted / measured - 1."""
    return predicted / measured - 1


def validate(summary, storage, cores):
    """One point per measured configuration: measured median (and range) of throughput, the
    in-sample and held-out predictions, their errors and binding bounds."""
    inputs = fit(summary, storage, cores)
    points = []
    for cfg in sorted({config_of(r) for r in summary}):
        runs = [r for r in summary if config_of(r) == cfg]
        values = [r["throughput_mops"] for r in runs]
        measured = statistics.median(values)
        row = dict(runs[0], ops=statistics.median(r["ops"] for r in runs))
        predicted, bound = predict(inputs, row, cores)
        others = [r for r in summary if key(r) == cfg[:3] and config_of(r) != cfg]
        held = predict(fit(others, storage, cores), row, cores) if others else (None, None)
        points.append(dict(system=cfg[0], phase=cfg[1], across_hosts=cfg[2], client_ranks=cfg[3], servers=cfg[4],
                           files_per_rank=cfg[5], repetitions=len(runs), measured_mops=measured,
                           measured_min_mops=min(values), measured_max_mops=max(values), predicted_mops=predicted,
                           error=error(predicted, measured), bound=bound, held_out_mops=held[0],
                           held_out_error=None if held[0] is None else error(held[0], measured),
                           held_out_bound=held[1]))
    return inputs, points


def target_inputs(inputs):
    """{(system, phase): (Inputs, where w comes from)}: the across-host inputs where runs
    spanned hosts, else the one-host ones."""
    out = {}
    for (system, phase, across), inp in sorted(inputs.items()):
        if across or (system, phase) not in out:
            out[(system, phase)] = (inp, across)
    return out


def project(inputs, target, nodes):
    """[{system, phase, nodes, mops, bound}] at each client node count in `nodes`."""
    out = []
    for (system, phase), (inp, across) in target_inputs(inputs).items():
        for n in nodes:
            ranks = n * target.ranks_per_node
            p_c, p_s = (ranks, 0) if phase == "compaction" else processes(
                system, phase, ranks, target.server_nodes * target.cores_per_node)
            storage_nodes = 1 if target.storage == "shared" else (target.server_nodes if p_s else n)
            floor = inp.storage.floor_bytes_per_s * storage_nodes if inp.storage else 0.0
            wait = inp.wait_us if across else target.network_rtt_us
            b = bounds(inp, (system, phase) in SYNC_PHASES, p_c, p_s, n * target.cores_per_node,
                       target.server_nodes * target.cores_per_node, wait, floor)
            mops, bound = throughput(b, ranks * target.files_per_rank, inp.fixed_s)
            out.append(dict(system=system, phase=phase, nodes=n, client_ranks=ranks, mops=mops, bound=bound))
    return out


def cpu_per_op(inputs, system, phases):
    """CPU microseconds per operation of a design's phases, added (clients + servers); None if
    a phase was not measured."""
    found = target_inputs(inputs)
    if not all((system, p) in found for p in phases):
        return None
    return sum(found[(system, p)][0].client_cpu_us + found[(system, p)][0].server_cpu_us for p in phases)


def ratios(projected, inputs):
    """DeltaFS over IndexFS at each node count: insert throughput, DeltaFS's write and
    compaction together (1 / (1/X_insert + 1/X_compaction)) over IndexFS's insert, and
    IndexFS's CPU per create over DeltaFS's (write + compaction); [] without both designs."""
    at = {(r["system"], r["phase"], r["nodes"]): r["mops"] for r in projected}
    nodes = sorted({r["nodes"] for r in projected})
    if not all(("deltafs", "insert", n) in at and ("indexfs", "insert", n) in at for n in nodes):
        return []
    index_cpu, delta_cpu = cpu_per_op(inputs, "indexfs", ["insert"]), cpu_per_op(inputs, "deltafs",
                                                                                  ["insert", "compaction"])
    out = []
    for n in nodes:
        delta, index = at[("deltafs", "insert", n)], at[("indexfs", "insert", n)]
        compaction = at.get(("deltafs", "compaction", n))
        both = 1 / (1 / delta + 1 / compaction) if compaction else None
        out.append(dict(nodes=n, insert=delta / index, insert_and_compaction=both and both / index,
                        cpu_per_create=delta_cpu and index_cpu / delta_cpu))
    return out
