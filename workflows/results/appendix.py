"""Rule artifact_appendix: results/<name>/artifact-appendix.md, the
artifact appendix (paper/appendix.md) with what comes from this configuration's results
filled in where its source says `<!-- generated: time estimates -->` (the wall time of each
step, from the rules' `benchmark:` files) and `<!-- generated: claims -->` (claims.md), so
that neither is written by hand nor goes stale."""
import csv
import json
import statistics
import sys

TIMES_MARK = "<!-- generated: time estimates -->"
CLAIMS_MARK = "<!-- generated: claims -->"


def wall_seconds(path):
    """The wall time a `benchmark:` file recorded (its `s` column)."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    if not rows or "s" not in rows[0]:
        raise ValueError(f"{path} is not a Snakemake benchmark file (no `s` column): rerun its rule")
    return float(rows[0]["s"])


def minutes(seconds):
    return f"{seconds / 60:.1f}"


def times_table(build, steps, name, provenance):
    """Markdown: one row per step (label, runs, median and total wall time), then the sum."""
    host = provenance.get("host", {})
    lines = [f"Wall time of each step in the `{name}` configuration, measured by its own run "
             f"(revision {provenance.get('git_revision', '?')}, host {host.get('hostname', '?')}, "
             f"{host.get('machine', '?')}); the analysis rules take seconds.", "",
             "| step | runs | median per run (s) | total (min) |", "| --- | ---: | ---: | ---: |"]
    total = wall_seconds(build)
    lines.append(f"| build the core (`build_core`) | 1 | {total:.0f} | {minutes(total)} |")
    for label, files in steps:
        times = [wall_seconds(p) for p in files]
        if not times:
            continue
        total += sum(times)
        lines.append(f"| {label} | {len(times)} | {statistics.median(times):.1f} | {minutes(sum(times))} |")
    lines.append(f"| **all** | | | **{minutes(total)}** |")
    return "\n".join(lines)


def fill(source, times, claims):
    for mark in (TIMES_MARK, CLAIMS_MARK):
        if source.count(mark) != 1:
            raise ValueError(f"the appendix source must hold `{mark}` exactly once")
    return source.replace(TIMES_MARK, times).replace(CLAIMS_MARK, claims)


def main(sm):
    try:
        with open(sm.input.provenance) as f:
            provenance = json.load(f)
        times = times_table(sm.input.build, sm.params.steps, sm.params.name, provenance)
        with open(sm.input.claims) as f:
            claims = f.read().strip().removeprefix("# Claims").strip()  # the appendix's section has the heading
        with open(sm.input.source) as f:
            text = fill(f.read(), times, claims)
    except (OSError, ValueError) as e:
        sys.exit(f"artifact_appendix: {e}")
    with open(sm.output[0], "w") as f:
        f.write(text)
