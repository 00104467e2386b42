"""Reads the runs' JSON Lines results into flat rows: one per implementation x system x phase
x scale x repetition. Every phase document names the run of core/bench/runs.py that wrote
it (`run`; its system and phases are the registry's) and records the run's coordinates
(`coordinates`, runs.py's coordinates()), which are read from there, not from the result's
path (a path Snakemake alone needs); and the environment the phase was measured in
(environment/phase.py). The original's compactor also moves each writer store's root entry,
one per client rank: its compaction's expected operations count them."""
import json

from workflows.environment.phase import ENVIRONMENT_COLUMNS, environment_columns
from workflows.registry import SYSTEMS

COLUMNS = ["implementation", "system", "phase", "storage", "client_ranks", "servers", "files_per_rank", "repetition", "ops",
           "expected_ops", "errors", "elapsed_s", "throughput_mops", "micros_per_op", "lat_min_us", "lat_q1_us",
           "lat_median_us", "lat_q3_us", "lat_q90_us", "lat_q99_us", "lat_max_us", "cpu_clients_s",
           "cpu_servers_s", "rank_min_s", "rank_max_s", "git_revision", "hosts", *ENVIRONMENT_COLUMNS]
QUANTILES = ["min", "q1", "median", "q3", "q90", "q99", "max"]
RUNS = {result.run: (system.name, result.phases) for system in SYSTEMS.values() for result in system.results.values()}


def documents(path):
    """[(line number, phase document)] of a result file; ValueError naming the file if it
    holds none or a line is no JSON."""
    docs = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                try:
                    docs.append((number, json.loads(line)))
                except json.JSONDecodeError as e:
                    raise ValueError(f"{path}:{number}: malformed phase result ({e!r})") from None
    if not docs:
        raise ValueError(f"{path} holds no phase results")
    return docs


def coordinates(doc):
    """(the coordinates of the run a phase document comes from, the phases its result file
    holds). For DeltaFS, `servers` is the reader count of the compaction and read phases and
    0 for the write phase."""
    c = doc["coordinates"]
    system, phases = RUNS[doc["run"]]
    return dict(implementation=c["implementation"], system=system, storage=doc["storage"]["backend"],
                client_ranks=c["client_ranks"], servers=c["servers"], files_per_rank=c["files_per_rank"],
                repetition=c["repetition"]), phases


def result_file(path):
    """(the coordinates of the run whose result file is `path`, the phases the file holds),
    as its first phase document records them; ValueError naming the file if it cannot tell."""
    number, doc = documents(path)[0]
    try:
        return coordinates(doc)
    except (KeyError, TypeError) as e:
        raise ValueError(f"{path}:{number}: no run coordinates ({e!r}): rerun it") from None


def blank(value):
    """A value the original does not report (None) as an empty cell."""
    return "" if value is None else value


def rows(paths):
    """Yields one row per phase document; raises ValueError naming the file if one is malformed."""
    for path in paths:
        for number, d in documents(path):
            try:
                where = coordinates(d)[0]
                lat = d["latency_us"] or {}
                root_entries = where["client_ranks"] if (where["implementation"], d["phase"]) == (
                    "original", "compaction") else 0
                yield dict(where, phase=d["phase"], ops=d["ops"],
                           expected_ops=where["client_ranks"] * where["files_per_rank"] + root_entries,
                           errors=d["errors"]["total"], elapsed_s=d["elapsed_s"],
                           throughput_mops=d["throughput_mops"], micros_per_op=d["micros_per_op"],
                           **{f"lat_{q}_us": lat.get(q, "") for q in QUANTILES},
                           cpu_clients_s=blank(d["cpu_s"]["clients"]), cpu_servers_s=blank(d["cpu_s"]["servers"]),
                           rank_min_s=blank(d["balance"]["rank_min_s"]), rank_max_s=blank(d["balance"]["rank_max_s"]),
                           git_revision=d["build"]["git_revision"],
                           hosts=(d.get("placement") or {}).get("hosts", 1),
                           **environment_columns(d, where["servers"]))
            except (KeyError, TypeError) as e:
                raise ValueError(f"{path}:{number}: malformed phase result ({e!r})") from None
