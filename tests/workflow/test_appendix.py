"""The artifact appendix a run writes (rule artifact_appendix): paper/appendix.md with that
run's step times, read from the rules' benchmark files, and its claims table filled in;
a source without its markers or a benchmark file without a wall time is refused by name."""
import glob
import json
import os
import re

import pytest

from workflow_helpers import REPO

from workflows.results.appendix import CLAIMS_MARK, TIMES_MARK, fill, wall_seconds

RUN_RULES = ("indexfs", "indexfs_bulk", "deltafs_read", "deltafs_compact", "deltafs_write", "mdworkbench")


def test_smoke_appendix_has_the_runs_step_times_and_claims(smoke):
    text = open(smoke.path("results", "smoke", "artifact-appendix.md")).read()
    assert "<!-- generated" not in text
    assert text.startswith(open(os.path.join(REPO, "paper", "appendix.md")).read().split(TIMES_MARK)[0])
    rows = {m[1]: (int(m[2]), float(m[3])) for m in re.finditer(r"^\| .*\(`(\w+)`\) \| (\d+) \| [\d.]+ \| ([\d.]+) \|$",
                                                              text, re.M)}
    assert set(rows) == {"build_core", *RUN_RULES}, rows
    benchmarks = glob.glob(smoke.path("results", "benchmarks", "**", "*.tsv"), recursive=True)
    runs = [p for p in benchmarks if not p.endswith("build_core.tsv")]
    assert sum(n for rule, (n, _) in rows.items() if rule != "build_core") == len(runs) == 23  # 20 + MD-Workbench 3
    total = sum(wall_seconds(p) for p in benchmarks)
    shown = float(re.search(r"^\| \*\*all\*\* \| \| \| \*\*([\d.]+)\*\* \|$", text, re.M)[1])
    assert shown == pytest.approx(total / 60, abs=0.06) and shown > 0
    claims = json.load(open(smoke.path("results", "smoke", "claims.json")))["claims"]
    for c in claims:
        assert c["claim"] in text, c["claim"]


def test_a_source_without_its_markers_is_refused():
    with pytest.raises(ValueError, match="must hold `<!-- generated: claims -->` exactly once"):
        fill(f"intro\n{TIMES_MARK}\n", "times", "claims")
    assert fill(f"a {TIMES_MARK} b {CLAIMS_MARK} c", "T", "C") == "a T b C c"


def test_a_benchmark_file_without_wall_time_is_named(tmp_path):
    bad = tmp_path / "rep1.tsv"
    bad.write_text("max_rss\n12\n")
    with pytest.raises(ValueError, match=f"{bad} is not a Snakemake benchmark file"):
        wall_seconds(str(bad))
    good = tmp_path / "rep2.tsv"
    good.write_text("s\th:m:s\tmax_rss\n12.5\t0:00:12\t3\n")
    assert wall_seconds(str(good)) == 12.5
