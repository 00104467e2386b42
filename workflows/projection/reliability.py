"""Whether the projection of each design's phase can be relied on: its fit's worst error on
the measured configurations, in sample and held out, against the stated bound (config key
`projection.max_error`); where it is beyond, the claims' conditions its runs were measured
outside of (the strictest of paper/claims.yaml's, on summary.csv's environment columns when
the runs recorded them), which the reliability names as the likely cause and the fix."""
from workflows.environment.conditions import outside_rows, strictest


def worst(errors):
    errors = [e for e in errors if e is not None]
    return max(errors, key=abs) if errors else None


def judge(points, summary, max_error, claims):
    """{(system, phase): {"reliable", "worst", "worst_held_out", "causes"}} for every fitted
    design's phase; causes: ["<what was outside the conditions> (<the fix>)"]."""
    conditions, out = strictest(claims), {}
    for key in dict.fromkeys((p["system"], p["phase"]) for p in points):
        pts = [p for p in points if (p["system"], p["phase"]) == key]
        w, h = worst(p["error"] for p in pts), worst(p["held_out_error"] for p in pts)
        reliable = all(e is None or abs(e) <= max_error for e in (w, h))
        rows = [r for r in summary if (r["system"], r["phase"]) == key]
        causes = [] if reliable else [f"{o['problem']} ({o['fix']})" for o in outside_rows(conditions, rows)]
        out[key] = {"reliable": reliable, "worst": w, "worst_held_out": h, "causes": causes}
    return out
