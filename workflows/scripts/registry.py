"""The designs the workflow runs, named in this one place: each system's name (config key
`systems`, the folder of its runs in results/runs/, the `system` column of summary.csv), the
paper's run number, its labels, colour and marker, and its run rules: the result file each
rule writes (with the rule's wildcards) and the phases that file holds. The rules
(workflows/rules/*.smk) and the scripts take all of this from here; systems and phases are
listed in the order of the tables and figures. Adding a system is an entry in SYSTEMS plus
its run rule(s) and their Slurm resources (config/profiles/slurm);
tests/workflow/test_registry.py checks that the three agree."""
from typing import NamedTuple

PHASES = ("insert", "compaction", "lstat")  # every phase a run reports


class Result(NamedTuple):
    """A run rule's result file, with the rule's wildcards, the phases it holds, and the file
    of its wall time (the rule's `benchmark:`, which the artifact appendix's time estimates
    read)."""

    path: str
    phases: tuple
    benchmark: str


class System(NamedTuple):
    name: str
    run: int  # the paper's run number
    label: str  # legends, tables and the run rules' messages
    short: str  # axis ticks
    color: str
    marker: str
    results: dict  # run rule -> Result, in the order the analysis rules read them


SYSTEMS = {s.name: s for s in [
    System("indexfs", 1, "IndexFS", "IndexFS", "#1b6ca8", "o", {
        "indexfs": Result("results/runs/indexfs/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}/phases.jsonl",
                          ("insert", "lstat"),
                          "results/benchmarks/indexfs/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}.tsv")}),
    System("indexfs-bulk", 2, "IndexFS + bulk insertion", "IndexFS+bulk", "#e08a1e", "s", {
        "indexfs_bulk": Result("results/runs/indexfs-bulk/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}/phases.jsonl",
                               ("insert", "lstat"),
                               "results/benchmarks/indexfs-bulk/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}.tsv")}),
    # The write phase's result sits above the per-reader-count compaction and read phases.
    System("deltafs", 3, "DeltaFS", "DeltaFS", "#2a9d4b", "^", {
        "deltafs_read": Result("results/runs/deltafs/{backend}/c{ranks}-n{n}/rep{rep}/r{readers}/read.jsonl",
                               ("lstat",),
                               "results/benchmarks/deltafs/{backend}/c{ranks}-n{n}/rep{rep}/r{readers}/read.tsv"),
        "deltafs_compact": Result("results/runs/deltafs/{backend}/c{ranks}-n{n}/rep{rep}/r{readers}/compact.jsonl",
                                  ("compaction",),
                                  "results/benchmarks/deltafs/{backend}/c{ranks}-n{n}/rep{rep}/r{readers}/compact.tsv"),
        "deltafs_write": Result("results/runs/deltafs/{backend}/c{ranks}-n{n}/rep{rep}/write.jsonl", ("insert",),
                                "results/benchmarks/deltafs/{backend}/c{ranks}-n{n}/rep{rep}/write.tsv")}),
]}
RESULTS = {rule: result for system in SYSTEMS.values() for rule, result in system.results.items()}
