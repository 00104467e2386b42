"""The smoke profile end to end: outputs, summary contents (the environment of every phase
too), figures and report (its front page rendered in headless Chromium holds the claims'
verdicts), and that a second run has nothing to do. The check_* helpers are also applied to the RADOS profile's
run (test_rados.py)."""
import csv
import json
import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from workflow_helpers import NO_MDWB

FIGURES = ["insert_throughput", "lstat_throughput", "compaction_throughput", "end_to_end_time",
           "latency_quantiles", "cpu_per_mop", "claims", "scale_throughput"]
PHASES = {"indexfs": {"insert", "lstat"}, "indexfs-bulk": {"insert", "lstat"},
          "deltafs": {"insert", "compaction", "lstat"}}


def check_summary(wf, storage, phases=PHASES):
    """Every run of the smoke scale in summary.csv ({system: its phases}), with exact op counts and no errors."""
    with open(wf.out("summary.csv")) as f:
        rows = list(csv.DictReader(f))
    # smoke: client ranks 1 and 2, 2 repetitions, 500 files per rank
    expected = {(s, p, c, r) for s, ps in phases.items() for p in ps for c in ("1", "2") for r in ("1", "2")}
    assert {(r["system"], r["phase"], r["client_ranks"], r["repetition"]) for r in rows} == expected
    assert len(rows) == len(expected)
    for r in rows:
        assert int(r["errors"]) == 0
        assert int(r["ops"]) == int(r["client_ranks"]) * 500 == int(r["expected_ops"])
        assert float(r["throughput_mops"]) > 0
        assert float(r["elapsed_s"]) > 0
        assert r["git_revision"]
        assert r["storage"] == storage
        assert 0 <= float(r["cpu_other_share"]) <= 1 and float(r["cpu_own_share"]) > 0 and r["store_kind"]


def check_validation_and_provenance(wf, storage, phases_checked=28):
    with open(wf.out("validation.json")) as f:
        v = json.load(f)
    assert v["ok"] and v["problems"] == [] and v["phases_checked"] == phases_checked
    with open(wf.out("provenance.json")) as f:
        p = json.load(f)
    assert p["config"]["files_per_rank"] == 500
    assert p["config"]["storage"] == p["storage"]["backend"] == storage
    assert p["tools"]["bin_dir"].endswith("build/core")
    assert p["python_packages"]["snakemake"].startswith("9.")
    assert p["preflight"]["cores"]["given"] == 2 and "results/runs/" in p["preflight"]["stores"]
    assert {phase for phases in p["environment"].values() for phase in phases} == set.union(*PHASES.values())
    mdworkbench = {path: phases for path, phases in p["placement"].items() if "/runs/mdworkbench/" in path}
    interfaces = len(p["config"]["mdworkbench"]["interfaces"])  # a run each (one repetition in these profiles)
    assert len(mdworkbench) == interfaces >= 3 and len(p["placement"]) == interfaces + len(p["environment"])
    assert all(phase["rank_hosts"] for phases in p["placement"].values() for phase in phases.values())
    return p


def check_figures(wf):
    for name in FIGURES:
        with open(wf.out("figures", name + ".pdf"), "rb") as f:
            pdf = f.read()
        assert pdf.startswith(b"%PDF-") and b"%%EOF" in pdf[-64:] and len(pdf) > 5_000, name
        with open(wf.out("figures", name + ".png"), "rb") as f:
            png = f.read()
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 20_000, name


def check_results_table_and_report(wf):
    with open(wf.out("results-table.md")) as f:
        table = f.read()
    assert table.count("| DeltaFS | compaction |") == 2
    with open(wf.out("report.html")) as f:
        html = f.read()
    assert len(html) > 100_000 and "summary.csv" in html and "insert throughput" in html and "claims.md" in html


def check_second_run_is_a_no_op(wf):
    res = wf.run("--dry-run")
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert "Nothing to be done" in res.stdout + res.stderr


def test_summary_has_every_run_with_exact_counts(smoke):
    check_summary(smoke, "posix")


def test_validation_and_provenance(smoke):
    check_validation_and_provenance(smoke, "posix")


def test_core_build_uses_every_core_it_is_given(smoke):
    with open(smoke.path("results", "logs", "build_core.log")) as f:
        assert "with 2 parallel jobs" in f.read()  # snakemake --cores 2 (workflow_helpers.Workflow)


def test_figures_are_valid_pdf_and_png(smoke):
    check_figures(smoke)


def test_results_table_and_report(smoke):
    check_results_table_and_report(smoke)


class Text(HTMLParser):
    """The text a browser shows of an HTML document: what is not in a script or a style."""

    def __init__(self):
        super().__init__()
        self.hidden, self.parts = 0, []

    def handle_starttag(self, tag, attrs):
        self.hidden += tag in ("script", "style")

    def handle_endtag(self, tag):
        self.hidden -= tag in ("script", "style")

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def rendered_text(html_path):
    """The text of `html_path` once headless Chromium has run its scripts."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        pytest.skip("no chromium to render the report in (Debian: apt-get install chromium)")
    res = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000",
                          "--dump-dom", f"file://{html_path}"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    text = Text()
    text.feed(res.stdout)
    return " ".join(" ".join(text.parts).split())


def test_the_reports_front_page_shows_every_claims_verdict_and_the_environment(smoke):
    text = rendered_text(smoke.out("report.html"))
    with open(smoke.out("claims.json")) as f:
        claims = json.load(f)["claims"]
    assert "Verdict" in text and "Environment" in text and "Other processes' share of the CPUs" in text, text[:3000]
    for c in claims:
        shown = text[text.index(c["claim"]):][:len(c["claim"]) + 400]
        assert shown[len(c["claim"]):].lstrip().startswith({"held": "held", "failed": "failed",
                                                           "not comparable here": "not comparable here: ",
                                                           "not tested": "not tested"}[c["status"]]), shown


def test_second_run_is_a_no_op(smoke):
    check_second_run_is_a_no_op(smoke)


def test_runs_through_an_mpi_hostfile(workflow_in):
    hostfile = workflow_in.path("hostfile")
    with open(hostfile, "w") as f:
        f.write("localhost:8\n")
    res = workflow_in.run(overrides={**NO_MDWB, "systems": ["indexfs", "deltafs"], "client_ranks": [2],
                                     "repetitions": 1, "mpi": {"mpiexec": "mpiexec", "hostfile": hostfile}})
    assert res.returncode == 0, res.stderr[-3000:]
    logs = open(workflow_in.path("results", "logs", "indexfs", "posix", "c2-s2-n500", "rep1.log")).read()
    assert f"-f {hostfile}" in logs
