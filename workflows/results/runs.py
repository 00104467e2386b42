"""Reads the runs' JSON Lines results into flat rows: one per implementation x system x phase
x scale x repetition, with the run's coordinates taken from its path, which is one of the run
rules' result files (registry.py), and the environment the phase was measured in
(environment/phase.py). The original's compactor also moves each writer store's root entry,
one per client rank: its compaction's expected operations count them."""
import json
import re

from workflows.environment.phase import ENVIRONMENT_COLUMNS, environment_columns
from workflows.registry import IMPLEMENTATIONS, SYSTEMS, results_of

COLUMNS = ["implementation", "system", "phase", "storage", "client_ranks", "servers", "files_per_rank", "repetition", "ops",
           "expected_ops", "errors", "elapsed_s", "throughput_mops", "micros_per_op", "lat_min_us", "lat_q1_us",
           "lat_median_us", "lat_q3_us", "lat_q90_us", "lat_q99_us", "lat_max_us", "cpu_clients_s",
           "cpu_servers_s", "rank_min_s", "rank_max_s", "git_revision", "hosts", *ENVIRONMENT_COLUMNS]
QUANTILES = ["min", "q1", "median", "q3", "q90", "q99", "max"]
WORD, NUMBER = r"\w+", r"\d+"
WORD_WILDCARDS = ("backend", "interface")


def path_regex(pattern):
    """A result path pattern as a regular expression: the storage backend and the interface
    are words, the other wildcards numbers."""
    parts = re.split(r"\{(\w+)\}", pattern)  # literal text, wildcard, literal text, ...
    for i in range(1, len(parts), 2):
        parts[i] = f"(?P<{parts[i]}>{WORD if parts[i] in WORD_WILDCARDS else NUMBER})"
    parts[::2] = [re.escape(p) for p in parts[::2]]
    return re.compile("".join(parts) + "$")


PATHS = [(impl, system, result.phases, path_regex(result.path)) for impl in IMPLEMENTATIONS
         for system in SYSTEMS.values() for result in results_of(system, impl).values()]


def result_file(path):
    """(the coordinates of a run result path, the phases its file holds). For DeltaFS, `servers`
    is the reader count of the compaction and read phases and 0 for the write phase."""
    for impl, system, phases, regex in PATHS:
        m = regex.search(path.replace("\\", "/"))
        if m:
            g = m.groupdict()
            return dict(implementation=impl, system=system.name, storage=g["backend"], client_ranks=int(g["ranks"]),
                        servers=int(g.get("servers") or g.get("readers") or 0), files_per_rank=int(g["n"]),
                        repetition=int(g["rep"])), phases
    raise ValueError(f"{path} is not a run result path")


def blank(value):
    """A value the original does not report (None) as an empty cell."""
    return "" if value is None else value


def rows(paths):
    """Yields one row per phase document; raises ValueError naming the file if one is malformed."""
    for path in paths:
        where = result_file(path)[0]
        with open(path) as f:
            lines = [line for line in f if line.strip()]
        if not lines:
            raise ValueError(f"{path} holds no phase results")
        for number, line in enumerate(lines, 1):
            try:
                d = json.loads(line)
                backend = (d.get("storage") or {}).get("backend", where["storage"])
                if backend != where["storage"]:
                    raise ValueError(f"{path}:{number}: stores were on {backend}, not {where['storage']}")
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
            except (KeyError, TypeError, json.JSONDecodeError) as e:
                raise ValueError(f"{path}:{number}: malformed phase result ({e!r})") from None
