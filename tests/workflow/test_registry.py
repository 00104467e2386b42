"""workflows/registry.py, the one list of the systems, agrees with the rest of the
workflow: its run rules (RUN_RULES: the systems' and MD-Workbench's) are the workflow's
rules other than the local ones, the Slurm profile gives each of them its resources, the
configuration accepts only its systems,
every result file at a path it names reads back as the coordinates its run recorded, and
CephFS, the production baseline, has no original rules and no paper run number."""
import argparse
import json
import os
import re
import subprocess
import sys

import runs
import yaml

from workflow_helpers import REPO, SMOKE

from workflows.registry import DESIGNS, IMPLEMENTATIONS, MDWB_COLORS, PHASES, RUN_RULES, SYSTEMS, results_of
from workflows.results.runs import result_file


def workflow_rules():
    res = subprocess.run([sys.executable, "-m", "snakemake", "-s", os.path.join(REPO, "Snakefile"), "--directory",
                          REPO, "--configfile", SMOKE, "--list-rules"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    return set(res.stdout.split())


def local_rules():
    with open(os.path.join(REPO, "Snakefile")) as f:
        block = re.search(r"^localrules:\n((?:    \w+,\n)+)", f.read(), re.M)
    assert block, "the Snakefile has no localrules: block"
    return set(re.findall(r"\w+", block.group(1)))


def test_run_rules_are_the_workflows_rules_that_are_not_local():
    assert workflow_rules() - local_rules() == set(RUN_RULES)


def test_slurm_profile_gives_every_run_rule_its_resources():
    with open(os.path.join(REPO, "config", "profiles", "slurm", "config.yaml")) as f:
        profile = yaml.safe_load(f)
    assert set(profile["set-resources"]) == set(RUN_RULES)


def test_configuration_accepts_only_the_registrys_systems(workflow_in):
    res = workflow_in.run("--dry-run", overrides={"systems": ["indexfs", "lustre"]})
    assert res.returncode != 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert "systems: unknown lustre; the systems are indexfs, indexfs-bulk, deltafs, cephfs" in res.stdout + res.stderr


def test_every_run_rule_starts_a_run_of_core_bench():
    assert {result.run for result in RUN_RULES.values()} <= set(runs.RUNS) | {"mdworkbench"}


def test_every_result_file_reads_back_as_its_runs_coordinates(tmp_path):
    """A phase document as core/bench/runs.py (or original_runs.py) writes it for each run
    rule, at the rule's result path: the coordinates read from it are the rule's wildcards."""
    values = dict(backend="rados", ranks=3, servers=5, readers=7, n=500, rep=2)
    for system, impl in [(s, i) for s in SYSTEMS.values() for i in IMPLEMENTATIONS]:
        assert system.results and all(set(r.phases) <= set(PHASES) for r in system.results.values())
        for rule, result in results_of(system, impl).items():
            servers = 5 if "{servers}" in result.path else 7 if "{readers}" in result.path else 0
            asked = argparse.Namespace(run=result.run, ranks=3, servers=servers, n=500, repetition=2)
            path = tmp_path / result.path.format(**values)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"run": result.run, "coordinates": runs.coordinates(asked, impl),
                                        "storage": {"backend": "rados"}}) + "\n")
            where, phases = result_file(str(path))
            assert where == dict(implementation=impl, system=system.name, storage="rados", client_ranks=3,
                                 servers=servers, files_per_rank=500, repetition=2), rule
            assert phases == result.phases


def test_cephfs_is_a_baseline_beside_the_designs():
    cephfs = SYSTEMS["cephfs"]
    assert cephfs.run is None and cephfs.label == "CephFS MDS (production)"
    assert cephfs.color == MDWB_COLORS["cephfs"]
    assert set(DESIGNS) == set(SYSTEMS) - {"cephfs"}
    assert results_of(cephfs, "original") == {} and not [r for r in RUN_RULES if "cephfs" in r and r != "cephfs"]
    assert all(results_of(SYSTEMS[d], "original") for d in DESIGNS)
