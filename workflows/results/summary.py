"""Loads a summary.csv (results/<name>/summary.csv) and selects and groups its rows for the
figures, the results table and the claims (their medians and ranges over repetitions are
core/bench/repetitions.py's). A summary written before the implementation column existed
holds our core's rows only."""
import csv

from workflows.registry import IMPLEMENTATIONS

NUMERIC = {"client_ranks", "servers", "files_per_rank", "repetition", "ops", "expected_ops", "errors", "reruns"}


def load(path, implementation=None):
    """The rows of a summary.csv; with `implementation`, that implementation's alone."""
    with open(path, newline="") as f:
        out = []
        for r in csv.DictReader(f):
            row = {k: (int(v) if k in NUMERIC else float(v) if _is_float(v) else v) for k, v in r.items()}
            row.setdefault("implementation", "deltameta")
            if implementation in (None, row["implementation"]):
                out.append(row)
        return out


def _is_float(v):
    try:
        float(v)
        return True
    except ValueError:
        return False


def select(rows, **where):
    return [r for r in rows if all(r[k] == v for k, v in where.items())]


def implementations_of(rows):
    """The implementations in `rows`, in the registry's order (ours first)."""
    return [i for i in IMPLEMENTATIONS if select(rows, implementation=i)]


def ranks_of(rows):
    return sorted({r["client_ranks"] for r in rows})


def ns_of(rows):
    """The files per rank of `rows`, in increasing order (config key files_per_rank)."""
    return sorted({r["files_per_rank"] for r in rows})


def at_largest_n(rows):
    """(the rows at the largest files per rank, "<n> files per rank" when `rows` hold several
    values or "" when one): what the figures that show one files per rank use."""
    ns = ns_of(rows)
    if len(ns) < 2:
        return rows, ""
    return select(rows, files_per_rank=ns[-1]), f"{ns[-1]:,} files per rank"
