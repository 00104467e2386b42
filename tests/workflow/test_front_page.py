"""The report's front page (workflows/claims/front_page.py) on recorded results: every
claim's verdict, `not comparable here` with what was violated apart from `failed`, and the
environment, or the note that the results carry none (those made before it was measured)."""
import os

from workflow_helpers import REPO
from test_claims import CONDITIONS, RESULTS, SYSTEMS, claim, measured_in

from workflows.claims.check import check, load_claims
from workflows.claims.front_page import page
from workflows.environment.phase import ENVIRONMENT_COLUMNS
from workflows.results.summary import load


def test_each_verdict_and_the_environment_are_on_the_front_page():
    rows = measured_in(RESULTS, cpu_other_share=lambda r: 0.58 if r["client_ranks"] == 1 else 0.02)
    result = check({"claims": [claim(id="a", claim="bulk beats per-op", bound=10, conditions=CONDITIONS),
                               claim(id="b", claim="bulk beats per-op 5x", bound=5, conditions=CONDITIONS),
                               claim(id="c", claim="bulk beats per-op 60x", bound=60, conditions=CONDITIONS,
                                     of={"system": "indexfs-bulk", "phases": ["insert"]}),
                               claim(id="d", claim="deltafs", of={"system": "deltafs", "phases": ["insert"]})]},
                   rows, SYSTEMS)
    text = page("The description.", result, rows)
    assert text.startswith("The description.\n\nVerdict\n-------\n")
    assert "0 held, 2 failed, 1 not comparable here, 1 not tested" in text  # b: held, but at 1 rank busy
    assert "   * - bulk beats per-op\n     - **failed** (at 2 client ranks)\n" in text
    assert "     - *not comparable here: other processes used 58% of the CPUs during indexfs-bulk insert" in text
    assert "- Other processes' share of the CPUs during a phase: median 58%, highest 58%" in text  # 6 rows busy, 4 idle
    assert "- Stores on: ext4 (local disk)." in text


def test_results_without_an_environment_say_so():
    """The reference's rows as results made before the environment was measured would be."""
    rows = [dict(r, **{c: "" for c in ENVIRONMENT_COLUMNS})
            for r in load(os.path.join(REPO, "results", "reference", "summary.csv"))]
    result = check(load_claims(os.path.join(REPO, "paper", "claims.yaml")), rows, ["indexfs", "indexfs-bulk",
                                                                                   "deltafs"])
    text = page("d", result, rows)
    assert "6 held, 0 failed, 0 not comparable here, 0 not tested" in text
    assert "carry no record of the environment" in text
