"""Reads the runs' JSON Lines results into flat rows: one per system x phase x scale x
repetition, with the run's coordinates taken from its path under results/runs/."""
import json
import re

PATH = re.compile(
    r"results/runs/(?P<system>indexfs|indexfs-bulk)/(?P<storage>\w+)/c(?P<ranks>\d+)-s(?P<servers>\d+)-n(?P<n>\d+)"
    r"/rep(?P<rep>\d+)/phases\.jsonl$"
    r"|results/runs/(?P<dsystem>deltafs)/(?P<dstorage>\w+)/c(?P<dranks>\d+)-n(?P<dn>\d+)/rep(?P<drep>\d+)"
    r"(?:/r(?P<readers>\d+))?/(?:write|compact|read)\.jsonl$")

COLUMNS = ["system", "phase", "storage", "client_ranks", "servers", "files_per_rank", "repetition", "ops",
           "expected_ops", "errors", "elapsed_s", "throughput_mops", "micros_per_op", "lat_min_us", "lat_q1_us",
           "lat_median_us", "lat_q3_us", "lat_q90_us", "lat_q99_us", "lat_max_us", "cpu_clients_s",
           "cpu_servers_s", "rank_min_s", "rank_max_s", "git_revision", "hosts"]
QUANTILES = ["min", "q1", "median", "q3", "q90", "q99", "max"]


def coordinates(path):
    m = PATH.search(path.replace("\\", "/"))
    if not m:
        raise ValueError(f"{path} is not a run result path")
    g = m.groupdict()
    if g["system"]:
        return dict(system=g["system"], storage=g["storage"], client_ranks=int(g["ranks"]),
                    servers=int(g["servers"]), files_per_rank=int(g["n"]), repetition=int(g["rep"]))
    return dict(system="deltafs", storage=g["dstorage"], client_ranks=int(g["dranks"]),
                servers=int(g["readers"] or 0), files_per_rank=int(g["dn"]), repetition=int(g["drep"]))


def rows(paths):
    """Yields one row per phase document; raises ValueError naming the file if one is malformed."""
    for path in paths:
        where = coordinates(path)
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
                yield dict(where, phase=d["phase"], ops=d["ops"],
                           expected_ops=where["client_ranks"] * where["files_per_rank"],
                           errors=d["errors"]["total"], elapsed_s=d["elapsed_s"],
                           throughput_mops=d["throughput_mops"], micros_per_op=d["micros_per_op"],
                           **{f"lat_{q}_us": lat.get(q, "") for q in QUANTILES},
                           cpu_clients_s=d["cpu_s"]["clients"], cpu_servers_s=d["cpu_s"]["servers"],
                           rank_min_s=d["balance"]["rank_min_s"], rank_max_s=d["balance"]["rank_max_s"],
                           git_revision=d["build"]["git_revision"],
                           hosts=(d.get("placement") or {}).get("hosts", 1))
            except (KeyError, TypeError, json.JSONDecodeError) as e:
                raise ValueError(f"{path}:{number}: malformed phase result ({e!r})")
