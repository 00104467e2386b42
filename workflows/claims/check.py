"""The paper's claims (paper/claims.yaml) checked on the rows of a summary.csv: each claim is a
ratio of one design's metric to another's at every client count and files per rank (a
point), with a relation, a bound and a tolerance. Used by the claims rule (claims/verdicts.py)
and by the tests.

A claim is `held` when the median ratio at every point is inside its accepted interval,
`failed` when it is not at some point measured within the claim's conditions (reported,
never hidden), `not comparable here` when no point measured within them fails but some
point was measured outside them (any repetition of either side: other processes' CPU, the
stores' file system, /dev/shm; environment/conditions.py names each, with its measured
value and fix), and `not tested` when the configuration does not run a design it compares.
Results without the environment recorded are checked on their ratios alone. Missing data (a
design the configuration runs but whose phase or metric is absent at a point) raises
MissingData: the check cannot say anything then. The tables name the files per rank only
when the results hold several."""
import math
import statistics

import yaml

from workflows.environment.conditions import outside_rows, parse, recorded
from workflows.registry import PHASES, SYSTEMS
from workflows.results.numbers import fmt

RELATIONS = {">=", "<=", "within"}
# metric -> how one repetition's value is made from its rows (one per phase listed).
METRICS = {
    "throughput_mops": "the phase's throughput (one phase only)",
    "lat_median_us": "the phase's median latency per operation (one phase only)",
    "cpu_s_per_mop": "CPU seconds of every rank (clients + servers) of the phases listed, per million operations",
    "elapsed_s": "seconds of the phases listed, added",
}
SINGLE_PHASE = {"throughput_mops", "lat_median_us"}
FIELDS = {"id", "claim", "paper", "paper_value", "figure", "metric", "of", "over", "relation", "bound", "tolerance",
          "why", "conditions"}
OPTIONAL = {"paper", "paper_value", "why", "conditions"}
STATUSES = ("held", "failed", "not comparable here", "not tested")


class MissingData(Exception):
    """The results lack what a claim needs."""


def load_claims(path):
    """The claims of `path`, checked for shape; raises ValueError naming the claim and field."""
    with open(path) as f:
        doc = yaml.safe_load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("claims"), list) or not doc["claims"]:
        raise ValueError(f"{path}: expected a mapping with a non-empty list `claims`")
    seen = set()
    for i, c in enumerate(doc["claims"]):
        where = f"{path}: claim {i + 1} ({c.get('id', 'no id') if isinstance(c, dict) else c!r})"
        if not isinstance(c, dict):
            raise ValueError(f"{where}: not a mapping")
        missing = FIELDS - set(c) - OPTIONAL
        if missing:
            raise ValueError(f"{where}: missing {', '.join(sorted(missing))}")
        unknown = set(c) - FIELDS
        if unknown:
            known = ", ".join(sorted(FIELDS))
            raise ValueError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} (known: {known})")
        if c["id"] in seen:
            raise ValueError(f"{where}: the id is used twice")
        seen.add(c["id"])
        if c["metric"] not in METRICS:
            raise ValueError(f"{where}: metric {c['metric']!r} is none of {', '.join(sorted(METRICS))}")
        if c["relation"] not in RELATIONS:
            raise ValueError(f"{where}: relation {c['relation']!r} is none of {', '.join(sorted(RELATIONS))}")
        for key in ("bound", "tolerance"):
            if not isinstance(c[key], (int, float)) or c[key] <= 0:
                raise ValueError(f"{where}: {key} must be a positive number")
        if c["tolerance"] < 1:
            raise ValueError(f"{where}: tolerance is a factor >= 1 (1: none)")
        for side in ("of", "over"):
            s = c[side]
            if not isinstance(s, dict) or s.get("system") not in SYSTEMS or not s.get("phases") \
                    or not set(s["phases"]) <= set(PHASES):
                raise ValueError(f"{where}: {side} must be {{system: one of {', '.join(sorted(SYSTEMS))}, "
                                 f"phases: [some of {', '.join(sorted(PHASES))}]}}")
            if c["metric"] in SINGLE_PHASE and len(s["phases"]) != 1:
                raise ValueError(f"{where}: {c['metric']} is measured on one phase; {side} lists {s['phases']}")
        c["conditions"] = parse(c.get("conditions"), where)
    return doc


def accepted(claim):
    """The interval the median ratio must fall in: (low, high)."""
    b, t = float(claim["bound"]), float(claim["tolerance"])
    return {">=": (b / t, math.inf), "<=": (0.0, b * t), "within": (b / t, b * t)}[claim["relation"]]


def digits_beside(values, bounds, most=6):
    """None where fmt's usual rounding already shows every value on its side of every finite
    bound; else the fewest significant digits that do (0.33287 beside 0.33333 reads 0.3329
    and 0.3333, not 0.33 and 0.33)."""
    def sides_kept(digits):
        shown = lambda x: float(fmt(x, digits))  # noqa: E731
        return all((v > b) == (shown(v) > shown(b)) and (v < b) == (shown(v) < shown(b))
                   for v in values for b in bounds if b is not None and math.isfinite(b) and b > 0)
    if sides_kept(None):
        return None
    return next((d for d in range(3, most + 1) if sides_kept(d)), most)


def expected_text(claim, digits=None):
    """The relation as stated and, with a tolerance, the interval it accepts (bounds shown
    with `digits`, see fmt)."""
    low, high = accepted(claim)
    b, t = f"{float(claim['bound']):g}", float(claim["tolerance"])
    if claim["relation"] == "within":
        return f"{fmt(low, digits)}x to {fmt(high, digits)}x (within {t:g}x of {b}x)"
    stated = f"{claim['relation']} {b}x"
    if t == 1:
        return stated
    edge = low if claim["relation"] == ">=" else high
    return f"{stated} (tolerance {t:g}x: {claim['relation']} {fmt(edge, digits)}x)"


def _number(row, column, what):
    v = row.get(column, "")
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            raise MissingData(f"{what}: no {column} (the column is empty or missing in summary.csv)") from None
    if v != v:
        raise MissingData(f"{what}: {column} is not a number")
    return float(v)


def point_rows(rows, side, phase, ranks, n):
    """The rows of one side's `phase` at `ranks` client ranks x `n` files per rank."""
    return [r for r in rows if r["system"] == side["system"] and r["phase"] == phase
            and int(r["client_ranks"]) == ranks and int(r["files_per_rank"]) == n]


def side_values(rows, side, metric, ranks, n, claim_id):
    """{repetition: value} of one side of a claim at `ranks` client ranks x `n` files per rank."""
    per_rep = {}
    for phase in side["phases"]:
        what = f"claim {claim_id}: {side['system']} {phase} at {ranks} client ranks x {n} files per rank"
        found = point_rows(rows, side, phase, ranks, n)
        if not found:
            raise MissingData(f"{what}: no rows in summary.csv (rerun the workflow so that every configured "
                              "design runs at every client count)")
        for r in found:
            rep = int(r["repetition"])
            if metric == "cpu_s_per_mop":
                ops = _number(r, "ops", what)
                if ops <= 0:
                    raise MissingData(f"{what}: ops is {ops}")
                v = (_number(r, "cpu_clients_s", what) + _number(r, "cpu_servers_s", what)) / ops * 1e6
            else:
                v = _number(r, metric, what)
            per_rep[rep] = per_rep.get(rep, 0.0) + v
    return per_rep


def check_claim(claim, rows, systems):
    low, high = accepted(claim)
    out = {k: claim.get(k, "") for k in ("id", "claim", "paper", "figure", "metric", "relation", "bound",
                                         "tolerance", "why")}
    out["paper_value"] = claim.get("paper_value")
    out.update(of=claim["of"], over=claim["over"], accepted=[low, None if high == math.inf else high],
               expected=expected_text(claim), metric_means=METRICS[claim["metric"]], per_client_ranks=[])
    absent = [s for s in (claim["of"]["system"], claim["over"]["system"]) if s not in systems]
    if absent:
        out.update(status="not tested", held=None,
                   reason=f"the configuration does not run {', '.join(sorted(set(absent)))} (config key systems)")
        return out
    points = sorted({(int(r["client_ranks"]), int(r["files_per_rank"])) for r in rows
                     if r["system"] in (claim["of"]["system"], claim["over"]["system"])})
    if not points:
        raise MissingData(f"claim {claim['id']}: summary.csv has no rows of {claim['of']['system']} or "
                          f"{claim['over']['system']}")
    for x, n in points:
        of = side_values(rows, claim["of"], claim["metric"], x, n, claim["id"])
        over = side_values(rows, claim["over"], claim["metric"], x, n, claim["id"])
        if min(over.values()) <= 0:
            raise MissingData(f"claim {claim['id']}: {claim['over']['system']} {claim['metric']} is 0 at {x} "
                              f"client ranks x {n} files per rank: no ratio")
        median = statistics.median(of.values()) / statistics.median(over.values())
        measured_rows = [r for side in (claim["of"], claim["over"]) for phase in side["phases"]
                         for r in point_rows(rows, side, phase, x, n)]
        out["per_client_ranks"].append({
            "client_ranks": x, "files_per_rank": n, "median": median,
            "min": min(of.values()) / max(over.values()), "max": max(of.values()) / min(over.values()),
            "of": [of[k] for k in sorted(of)], "over": [over[k] for k in sorted(over)],
            "held": low <= median <= high, "outside": outside_rows(claim.get("conditions") or [], measured_rows)})
    pts = out["per_client_ranks"]
    held = all(p["held"] for p in pts)
    failed = [p for p in pts if not p["held"] and not p["outside"]]
    outside = [o for p in pts for o in p["outside"]]
    status = "failed" if failed else "not comparable here" if outside else "held"
    # A median near the accepted interval's edge is shown with the digits that tell its side.
    out["digits"] = digits_beside([p["median"] for p in pts], [low, high])
    out["expected"] = expected_text(claim, out["digits"])
    out.update(status=status, held=held if status != "not comparable here" else None,
               environment="recorded" if recorded(rows) else "not recorded",
               not_comparable=_worst(outside),
               measured={"median_low": min(p["median"] for p in pts), "median_high": max(p["median"] for p in pts),
                         "min": min(p["min"] for p in pts), "max": max(p["max"] for p in pts)},
               failed_at=[{"client_ranks": p["client_ranks"], "files_per_rank": p["files_per_rank"]}
                          for p in failed])
    return out


def _worst(outside):
    """One entry per condition violated: the one with the farthest measured value."""
    worst = {}
    for o in outside:
        have = worst.get(o["condition"])
        if have is None or (isinstance(o["measured"], float) and
                            (o["measured"] > have["measured"]) == (o["condition"] == "other_cpu_at_most")):
            worst[o["condition"]] = o
    return list(worst.values())


def not_comparable_text(r):
    """`not comparable here: <what was violated, with its measured value> (<the fix>)`, each
    condition violated once."""
    return "not comparable here: " + "; ".join(f"{o['problem']} ({o['fix']})" for o in r["not_comparable"])


# Metrics the original prototype does not report (core/bench/original_runs.py): its claims
# on them are "not tested" there, saying why.
NOT_REPORTED_BY_ORIGINAL = {
    "lat_median_us": "the original prints no latency quantiles, only each phase's mean micros/op",
}


def check(doc, rows, systems, implementation="deltameta"):
    """Every claim of `doc` on the rows of one implementation; raises MissingData if any
    tested claim lacks data."""
    rows = [r for r in rows if r.get("implementation", "deltameta") == implementation]
    results = []
    for c in doc["claims"]:
        if implementation == "original" and c["metric"] in NOT_REPORTED_BY_ORIGINAL:
            r = check_claim(c, rows, ())
            r["reason"] = NOT_REPORTED_BY_ORIGINAL[c["metric"]]
            results.append(r)
        else:
            results.append(check_claim(c, rows, systems))
    counts = {s: sum(r["status"] == s for r in results) for s in STATUSES}
    return {"paper": doc.get("paper", {}), "implementation": implementation, "counts": counts, "claims": results}


def several_n(result):
    """Whether the claims were checked at more than one files per rank."""
    return len({p["files_per_rank"] for r in result["claims"] for p in r["per_client_ranks"]}) > 1


def span(values, unit):
    values = sorted(set(values))
    return f"{values[0]:,} {unit}" if len(values) == 1 else f"{values[0]:,}-{values[-1]:,} {unit}"


def where(points, name_n):
    """Where a claim was measured: "<ranks> client ranks", and " x <n> files per rank" if `name_n`."""
    text = span([p["client_ranks"] for p in points], "client ranks")
    return text + (" x " + span([p["files_per_rank"] for p in points], "files per rank") if name_n else "")


def measured_text(r, name_n=False):
    if r["status"] == "not tested":
        return "not tested: " + r["reason"]
    m, d = r["measured"], r.get("digits")
    med = (f"{fmt(m['median_low'], d)}x" if fmt(m["median_low"], d) == fmt(m["median_high"], d)
           else f"{fmt(m['median_low'], d)}x to {fmt(m['median_high'], d)}x")
    return f"median {med} at {where(r['per_client_ranks'], name_n)} (range {fmt(m['min'])}x to {fmt(m['max'])}x)"


def counts_text(counts):
    """"2 held, 0 failed, 4 not comparable here, 0 not tested"."""
    return ", ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES)


def environment_text(result):
    """Whether the verdicts rest on a recorded environment."""
    if any(r.get("environment") == "recorded" for r in result["claims"]):
        return "The environment of every phase was measured with it (summary.csv's environment columns)."
    return ("These results carry no record of the environment they were measured in (made before it was "
            "measured): their verdicts rest on the ratios alone.")


def table(result, source, heading="# Claims"):
    """The claims as a Markdown table, then each claim's ratio per client count (and files per
    rank, when the results hold several)."""
    c, name_n = result["counts"], several_n(result)
    point = "client count and files per rank" if name_n else "client count"
    lines = [heading, "",
             f"The paper's claims checked on {source} by the workflow (paper/claims.yaml, "
             "workflows/claims/check.py): "
             f"{counts_text(c)}.", "",
             f"Each claim is a ratio of two designs' metric at every {point}: the median over repetitions of one "
             "over the median of the other; the range is the lowest and highest ratio of any two repetitions. "
             f"A claim holds when the median ratio at every {point} is in the expected interval, and fails when it "
             "is not at some point measured within the claim's conditions (paper/claims.yaml: other processes' "
             "share of the CPUs, the stores' file system, /dev/shm); a claim that misses nowhere within its "
             "conditions but was measured outside them somewhere is *not comparable here*: the table names what "
             "was violated, the value measured and how to get a valid run. " + environment_text(result), "",
             "| claim | figure | expected | measured | held | paper |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in result["claims"]:
        held = ("*" + not_comparable_text(r) + "*" if r["status"] == "not comparable here" else
                {"held": "yes", "failed": "**no**", "not tested": "not tested"}[r["status"]])
        if r["status"] == "failed" and name_n:
            held += " (at " + "; ".join(f"{p['client_ranks']} client ranks x {p['files_per_rank']:,} files per rank"
                                        for p in r["failed_at"]) + ")"
        elif r["status"] == "failed":
            held += f" (at {', '.join(str(p['client_ranks']) for p in r['failed_at'])} client ranks)"
        lines.append(f"| {r['claim']} | {r['figure']} | {r['expected']} | {measured_text(r, name_n)} | {held} | "
                     f"{r['paper'] or 'n/a'} |")
    n_head, n_rule = (" files per rank |", " ---: |") if name_n else ("", "")
    lines += ["", f"#{heading.split(' ', 1)[0]} Per {point}", "",
              f"| claim | client ranks |{n_head} median ratio | range | held |",
              f"| --- | ---: |{n_rule} ---: | --- | --- |"]
    for r in result["claims"]:
        for p in r["per_client_ranks"]:
            n_cell = f" {p['files_per_rank']} |" if name_n else ""
            median = fmt(p["median"], r.get("digits"))
            held = "yes" if p["held"] else "**no**"
            if p["outside"]:
                held += " (not comparable here: " + "; ".join(o["problem"] for o in p["outside"]) + ")"
            lines.append(f"| {r['id']} | {p['client_ranks']} |{n_cell} {median}x | {fmt(p['min'])}x to "
                         f"{fmt(p['max'])}x | {held} |")
    return "\n".join(lines) + "\n"
