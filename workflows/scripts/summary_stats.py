"""Loads results/summary.csv and groups its rows over repetitions (mean and standard
deviation), for the figures and the results table."""
import csv
import statistics

SYSTEMS = ["indexfs", "indexfs-bulk", "deltafs"]
LABELS = {"indexfs": "IndexFS", "indexfs-bulk": "IndexFS + bulk insertion", "deltafs": "DeltaFS"}
NUMERIC = {"client_ranks", "servers", "files_per_rank", "repetition", "ops", "expected_ops", "errors"}


def load(path):
    with open(path, newline="") as f:
        out = []
        for r in csv.DictReader(f):
            out.append({k: (int(v) if k in NUMERIC else float(v) if _is_float(v) else v) for k, v in r.items()})
        return out


def _is_float(v):
    try:
        float(v)
        return True
    except ValueError:
        return False


def mean_std(values):
    values = list(values)
    if not values:
        return float("nan"), 0.0
    return statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0


def select(rows, **where):
    return [r for r in rows if all(r[k] == v for k, v in where.items())]


def ranks_of(rows):
    return sorted({r["client_ranks"] for r in rows})
