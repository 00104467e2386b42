"""The projection model (rule projection, projection/fit.py): each design's throughput from a few
costs measured in this configuration's runs, checked against every configuration measured,
then evaluated at N client nodes up to the paper's scale. A model, not a measurement.
Pure functions; units: microseconds of CPU per operation (us/op), Mop/s, seconds.

Inputs, per system x phase x transport (one host; across hosts when runs spanned several),
from summary.csv and floor.csv:
  n     names per server of a run: files_per_rank x client_ranks / servers (DeltaFS lstat:
        / read-only servers; compaction: / compactor ranks; DeltaFS write: files_per_rank)
  c_c   CPU of the phase's client ranks per op: median of cpu_clients_s / ops over the runs
        of the regime of n (below) (the compaction's: its compactor ranks' CPU per entry,
        the shuffle included)
  c_s   CPU of its servers per op: median of cpu_servers_s / ops over the same runs (0
        without servers)
  w     round-trip wait of a synchronous RPC beyond both sides' CPU, from the runs with the
        fewest clients: max(0, median over them of k * elapsed_s / ops - c_c - c_s) with each
        run's regime's c_c, c_s (it also holds t0's share of those runs, t0 / (ops / k) per op)
  t0    fixed time of the phase (start, final flush, barriers): the median over runs of
        elapsed_s - ops / X (X below, with each run's regime's costs), at least 0
  b     bytes per entry the phase moves to or from storage, and F the storage floor of its
        operation (fio, bytes/s), from floor.csv; the storage bound applies only where every
        run stayed at or below the floor (above it, reads came from memory)

Regimes: a server's CPU per op changes with the names it holds (IndexFS: 4-5 us per lstat
while they fit its memtable, 8-10 us once lookups read table blocks). The measured levels of
n of a system x phase x transport are sorted and the median c_c + c_s of each level taken;
where the largest rise between neighbouring levels is at least REGIME_STEP (15%: the other
rises of the reference and scale runs, shared-host contention and run-to-run noise, were at
most 12%; the ones split were 20-52%), the runs split into two regimes there: n <= n_1 (n_1
the highest level below the rise) and n > n_1, each with its own c_c and c_s; otherwise one
regime holds every run. A
configuration, measured or target, takes the costs of its n's regime: at n above every
measured level, the largest measured regime's (a step is assumed, not a trend: no slope
within a regime is extrapolated).

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
p_s = C_s = S C, n = N r x files per rank / (S C) (servers with the store settings measured
here; without servers, files per rank); no shared-host bound (clients and servers on their
own nodes); w = the across-host round trip if measured, else the configured network round
trip; F_total = F
times the nodes whose storage the phase uses (server nodes with servers, else client
nodes) for storage per node, F for one shared storage system. The compaction runs r
compactor ranks per client node. The network's bandwidth is not a bound: at tens of bytes
per entry a 10 Gb/s link carries tens of millions of entries per second per node, above
every CPU bound here.

Validation: each measured configuration (system x phase x transport x client ranks x
servers x files per rank) is predicted twice: with inputs fitted on every run (in sample)
and with inputs fitted without that configuration's runs (held out, where another
configuration remains, the regimes fitted anew from the rest: a configuration held out
from the only level above a rise is predicted with the regime below); the error is
predicted / measured median - 1."""
import statistics
from typing import NamedTuple

from repetitions import median_range

SYNC_PHASES = {("indexfs", "insert"), ("indexfs", "lstat"), ("indexfs-bulk", "lstat"), ("deltafs", "lstat")}
BOUNDS = ("client CPU", "server CPU", "latency", "storage", "shared host")
REGIME_STEP = 0.15  # the rise of c_c + c_s between neighbouring levels of names per server that splits regimes


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


class Regime(NamedTuple):
    label: str  # "one regime", "<= n_1 names/server" or "> n_1 names/server"
    upto: float | None  # highest names per server of the regime (None: no limit)
    configs: tuple  # (client ranks, files per rank, names per server) of its runs
    inputs: Inputs


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


def names_per_server(system, phase, client_ranks, servers, files_per_rank):
    """n: the names each server (read-only server, compactor; DeltaFS write: client rank) holds."""
    p_c, p_s = processes(system, phase, client_ranks, servers)
    return files_per_rank * client_ranks / (p_s or p_c)


def row_names(row):
    return names_per_server(row["system"], row["phase"], row["client_ranks"], row["servers"], row["files_per_rank"])


def cpu_us(row):
    """(client, server) CPU microseconds per op of a summary row."""
    return row["cpu_clients_s"] / row["ops"] * 1e6, row["cpu_servers_s"] / row["ops"] * 1e6


def split(rows):
    """n_1, the highest level of names per server below a rise of c_c + c_s of at least
    REGIME_STEP (the largest rise), or None: one regime."""
    levels = sorted({row_names(r) for r in rows})
    total = [statistics.median(sum(cpu_us(r)) for r in rows if row_names(r) == n) for n in levels]
    step, at = max(((b / a - 1, n) for a, b, n in zip(total, total[1:], levels, strict=False)), default=(0.0, None))
    return at if step >= REGIME_STEP else None


def regime_at(regimes, names):
    """The regime of a configuration of `names` per server: the first whose limit holds it."""
    return next(r for r in regimes if r.upto is None or names <= r.upto)


def cpu_of(regimes, row):
    """(c_c, c_s) of the regime of a summary row."""
    inp = regime_at(regimes, row_names(row)).inputs
    return inp.client_cpu_us, inp.server_cpu_us


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


def regimes_of(k, rows, storage):
    """The regimes of one key's runs, with c_c and c_s (w and t0 still 0)."""
    at = split(rows)
    groups = ([("one regime", None, rows)] if at is None else
              [(f"<= {at:,.0f} names/server", at, [r for r in rows if row_names(r) <= at]),
               (f"> {at:,.0f} names/server", None, [r for r in rows if row_names(r) > at])])
    out = []
    for label, upto, group in groups:
        c_c = statistics.median(cpu_us(r)[0] for r in group)
        if c_c <= 0:
            raise ModelError(f"{k[0]} {k[1]}: no client CPU time measured (cpu_clients_s is 0)")
        configs = tuple(sorted({(r["client_ranks"], r["files_per_rank"], row_names(r)) for r in group}))
        out.append(Regime(label, upto, configs, Inputs(c_c, statistics.median(cpu_us(r)[1] for r in group), 0.0,
                                                       0.0, storage.get(k[:2]), len(group))))
    return out


def fit(summary, storage, cores):
    """{key: (Regime, ...)} from summary rows (dicts with numbers, as summary_stats.load gives)."""
    out = {}
    for k in sorted({key(r) for r in summary}):
        rows = [r for r in summary if key(r) == k and r["ops"] > 0]
        if not rows:
            raise ModelError(f"{k[0]} {k[1]}: no run with operations")
        regimes = regimes_of(k, rows, storage)

        wait = 0.0
        if k[:2] in SYNC_PHASES:
            fewest = min(r["client_ranks"] for r in rows)
            wait = max(0.0, statistics.median(r["client_ranks"] * r["elapsed_s"] / r["ops"] * 1e6
                                              - sum(cpu_of(regimes, r))
                                              for r in rows if r["client_ranks"] == fewest))
        residual = [r["elapsed_s"] - r["ops"] / (min(measured_bounds(regime_at(regimes, row_names(r)).inputs._replace(
            wait_us=wait), r, cores).values()) * 1e6) for r in rows]
        fixed = max(0.0, statistics.median(residual))
        out[k] = tuple(g._replace(inputs=g.inputs._replace(wait_us=wait, fixed_s=fixed)) for g in regimes)
    return out


def predict(inputs, row, cores):
    """(Mop/s, binding bound, regime label) the model gives for a measured run's configuration."""
    g = regime_at(inputs[key(row)], row_names(row))
    return throughput(measured_bounds(g.inputs, row, cores), row["ops"], g.inputs.fixed_s) + (g.label,)


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
        measured, lowest, highest = median_range(r["throughput_mops"] for r in runs)
        row = dict(runs[0], ops=statistics.median(r["ops"] for r in runs))
        predicted, bound, regime = predict(inputs, row, cores)
        others = [r for r in summary if key(r) == cfg[:3] and config_of(r) != cfg]
        held = predict(fit(others, storage, cores), row, cores) if others else (None, None, None)
        points.append(dict(system=cfg[0], phase=cfg[1], across_hosts=cfg[2], client_ranks=cfg[3], servers=cfg[4],
                           files_per_rank=cfg[5], names_per_server=row_names(row), repetitions=len(runs),
                           measured_mops=measured, measured_min_mops=lowest, measured_max_mops=highest,
                           predicted_mops=predicted, error=error(predicted, measured), bound=bound, regime=regime,
                           held_out_mops=held[0], held_out_error=None if held[0] is None else error(held[0], measured),
                           held_out_bound=held[1], held_out_regime=held[2]))
    return inputs, points


def target_inputs(inputs):
    """{(system, phase): ((Regime, ...), where w comes from)}: the across-host inputs where
    runs spanned hosts, else the one-host ones."""
    out = {}
    for (system, phase, across), regimes in sorted(inputs.items()):
        if across or (system, phase) not in out:
            out[(system, phase)] = (regimes, across)
    return out


def server_names(target, nodes):
    """The names each server rank of the target holds at `nodes` client nodes."""
    return nodes * target.ranks_per_node * target.files_per_rank / (target.server_nodes * target.cores_per_node)


def project(inputs, target, nodes):
    """[{system, phase, nodes, client_ranks, names_per_server, regime, largest_regime, cpu_us,
    mops, bound}] at each client node count in `nodes`."""
    out = []
    for (system, phase), (regimes, across) in target_inputs(inputs).items():
        for n in nodes:
            ranks = n * target.ranks_per_node
            p_c, p_s = (ranks, 0) if phase == "compaction" else processes(
                system, phase, ranks, target.server_nodes * target.cores_per_node)
            names = server_names(target, n) if p_s else target.files_per_rank
            g = regime_at(regimes, names)
            inp = g.inputs
            storage_nodes = 1 if target.storage == "shared" else (target.server_nodes if p_s else n)
            floor = inp.storage.floor_bytes_per_s * storage_nodes if inp.storage else 0.0
            wait = inp.wait_us if across else target.network_rtt_us
            b = bounds(inp, (system, phase) in SYNC_PHASES, p_c, p_s, n * target.cores_per_node,
                       target.server_nodes * target.cores_per_node, wait, floor)
            mops, bound = throughput(b, ranks * target.files_per_rank, inp.fixed_s)
            out.append(dict(system=system, phase=phase, nodes=n, client_ranks=ranks, names_per_server=names,
                            regime=g.label, largest_regime=g is regimes[-1],
                            cpu_us=inp.client_cpu_us + inp.server_cpu_us, mops=mops, bound=bound))
    return out


def ratios(projected):
    """DeltaFS over IndexFS at each node count: insert throughput, DeltaFS's write and
    compaction together (1 / (1/X_insert + 1/X_compaction)) over IndexFS's insert, and
    IndexFS's CPU per create over DeltaFS's (write + compaction; each at that node count's
    regime); [] without both designs."""
    at = {(r["system"], r["phase"], r["nodes"]): r for r in projected}
    nodes = sorted({r["nodes"] for r in projected})
    if not all(("deltafs", "insert", n) in at and ("indexfs", "insert", n) in at for n in nodes):
        return []
    out = []
    for n in nodes:
        delta, index, compaction = (at.get((s, p, n)) for s, p in [("deltafs", "insert"), ("indexfs", "insert"),
                                                                    ("deltafs", "compaction")])
        both = compaction and 1 / (1 / delta["mops"] + 1 / compaction["mops"])
        out.append(dict(nodes=n, insert=delta["mops"] / index["mops"],
                        insert_and_compaction=both and both / index["mops"],
                        cpu_per_create=compaction and index["cpu_us"] / (delta["cpu_us"] + compaction["cpu_us"])))
    return out
