"""The designs the workflow runs, named in this one place: each system's name (config key
`systems`, the folder of its runs in results/runs/, the `system` column of summary.csv), the
paper's run number, its labels, colour and marker, and its run rules: the result file each
rule writes (with the rule's wildcards) and the phases that file holds. The rules
(workflows/rules/*.smk) and the scripts take all of this from here; systems and phases are
listed in the order of the tables and figures. Adding a system is an entry in SYSTEMS plus
its run rule(s) and their Slurm resources (config/profiles/slurm);
tests/workflow/test_registry.py checks that the three agree. The MD-Workbench workload
(config key `mdworkbench`) is a run of its own beside the systems: its interfaces and its
one run rule are here too (RUN_RULES holds every run rule).

Each design runs on each configured implementation (config key `implementations`): ours,
the core's tools, and the original, the authors' DeltaFS prototype (deltafs-proto v2021.5,
built by rule build_original, run with the seed guide's command lines by
core/bench/original_runs.py). The original's run rules are ours prefixed `original_`, and
its results, logs and wall times sit in an `original/` folder of the same places. The
original has the paper's three designs only (DESIGNS): CephFS, the production
baseline, has no original rules or results."""
from typing import NamedTuple, Optional

PHASES = ("insert", "compaction", "lstat")  # every phase a run reports


class Result(NamedTuple):
    """A run rule's result file, with the rule's wildcards, the phases it holds, the file of
    its wall time (the rule's `benchmark:`, which the artifact appendix's time estimates
    read), and the run of core/bench/runs.py that writes it, which its phase documents name
    (`run`) beside the run's coordinates (`coordinates`)."""

    path: str
    phases: tuple
    benchmark: str
    run: str


class System(NamedTuple):
    name: str
    run: Optional[int]  # the paper's run number; None: not one of the paper's runs
    label: str  # legends, tables and the run rules' messages
    short: str  # axis ticks
    color: str
    marker: str
    results: dict  # run rule -> Result, in the order the analysis rules read them
    tools: tuple  # the core's tools its runs start (core/bench/runs.py)
    # Its servers when they are not ours and their CPU is read from /proc by the runner
    # (CephFS's "MDS"; core/bench/runs.py mds_cpu); None: ours, whose tools count their CPU
    sampled_servers: Optional[str] = None

    def cpu_note(self):
        """The results table's note on where this system's server CPU comes from, if not ours."""
        if self.sampled_servers is None:
            return None
        return (f"{self.label}: its servers' CPU is its {self.sampled_servers}'s, read from /proc by the runner "
                "from each phase's start to its end, interpolated between readings a quarter second apart; the "
                "OSDs under it count as storage, as the OSDs under the designs' RADOS stores do.")


SYSTEMS = {s.name: s for s in [
    System("indexfs", 1, "IndexFS", "IndexFS", "#1b6ca8", "o", {
        "indexfs": Result("results/runs/indexfs/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}/phases.jsonl",
                          ("insert", "lstat"),
                          "results/benchmarks/indexfs/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}.tsv", "indexfs")},
           ("deltameta_server", "deltameta_client")),
    System("indexfs-bulk", 2, "IndexFS + bulk insertion", "IndexFS+bulk", "#e08a1e", "s", {
        "indexfs_bulk": Result("results/runs/indexfs-bulk/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}/phases.jsonl",
                               ("insert", "lstat"),
                               "results/benchmarks/indexfs-bulk/{backend}/c{ranks}-s{servers}-n{n}/rep{rep}.tsv",
                               "indexfs-bulk")},
           ("deltameta_server", "deltameta_client", "deltameta_client_store")),
    # The write phase's result sits above the per-reader-count compaction and read phases.
    System("deltafs", 3, "DeltaFS", "DeltaFS", "#2a9d4b", "^", {
        "deltafs_read": Result("results/runs/deltafs/{backend}/c{ranks}-n{n}/rep{rep}/r{readers}/read.jsonl",
                               ("lstat",),
                               "results/benchmarks/deltafs/{backend}/c{ranks}-n{n}/rep{rep}/r{readers}/read.tsv",
                               "deltafs-read"),
        "deltafs_compact": Result("results/runs/deltafs/{backend}/c{ranks}-n{n}/rep{rep}/r{readers}/compact.jsonl",
                                  ("compaction",),
                                  "results/benchmarks/deltafs/{backend}/c{ranks}-n{n}/rep{rep}/r{readers}/compact.tsv",
                                  "deltafs-compact"),
        "deltafs_write": Result("results/runs/deltafs/{backend}/c{ranks}-n{n}/rep{rep}/write.jsonl", ("insert",),
                                "results/benchmarks/deltafs/{backend}/c{ranks}-n{n}/rep{rep}/write.tsv",
                                "deltafs-write")},
           ("deltameta_client", "deltameta_client_store", "deltameta_compactor", "deltameta_server")),
    # CephFS's MDS, a production baseline beside the research designs (storage: rados only:
    # its MDS runs in that cluster). Not one of the paper's runs, no claim names it, and it has
    # no original implementation (DESIGNS).
    System("cephfs", None, "CephFS MDS (production)", "CephFS", "#8e44ad", "D", {
        "cephfs": Result("results/runs/cephfs/{backend}/c{ranks}-n{n}/rep{rep}/phases.jsonl", ("insert", "lstat"),
                         "results/benchmarks/cephfs/{backend}/c{ranks}-n{n}/rep{rep}.tsv", "cephfs")},
           ("deltameta_client",), "MDS"),
]}


class Implementation(NamedTuple):
    name: str
    label: str  # legends and tables
    rule_prefix: str  # of its run rules: ours are the systems' rules, the original's prefixed
    folder: str  # below results/runs/, results/logs/ and results/benchmarks/
    filled: bool  # its markers in the figures: filled (ours) or hollow (the original's)


# The paper's research designs: the original prototype has them, the storage floor and the
# projection model describe them. CephFS, the production baseline, is measured beside them only.
DESIGNS = ("indexfs", "indexfs-bulk", "deltafs")
IMPLEMENTATIONS = {i.name: i for i in [
    Implementation("deltameta", "ours (deltameta)", "", "", True),
    Implementation("original", "the authors' (deltafs-proto 2021.5)", "original_", "original/", False),
]}


def results_of(system, implementation):
    """{run rule: Result} of `system` on `implementation`: the original's at the same
    coordinates in its own folder; none for a system the original does not have (CephFS)."""
    impl = IMPLEMENTATIONS[implementation]
    if not impl.rule_prefix:
        return dict(system.results)
    if system.name not in DESIGNS:
        return {}

    def moved(path, top):
        return path.replace(top, top + impl.folder, 1)

    return {impl.rule_prefix + rule: Result(moved(r.path, "results/runs/"), r.phases,
                                            moved(r.benchmark, "results/benchmarks/"), r.run)
            for rule, r in system.results.items()}


RESULTS = {rule: result for system in SYSTEMS.values() for impl in IMPLEMENTATIONS
           for rule, result in results_of(system, impl).items()}

# MD-Workbench (workflows/rules/mdworkbench.smk): one run per interface and repetition, its
# coordinates MD-Workbench's options (-D data sets, -P precreated and -I benchmarked objects
# per set, -S object size, -R iterations, -O rank offset, -w stonewall seconds (0: none) and
# -W wear-out, 0 or 1). DeltaFS serves no create or delete
# after compaction: its run has no cleanup, and a compaction instead.
# CephFS, the production baseline, runs MD-Workbench through its MDS (storage: rados only: its
# MDS runs in that cluster).
MDWB_INTERFACES = {"posix": "POSIX directory", "indexfs": "IndexFS service", "deltafs": "DeltaFS (read-only)",
                   "cephfs": "CephFS MDS (production)"}
MDWB_COLORS = {"posix": "#6c757d", "indexfs": SYSTEMS["indexfs"].color, "deltafs": SYSTEMS["deltafs"].color,
               "cephfs": SYSTEMS["cephfs"].color}
MDWB_OPS = ("create", "stat", "read", "delete")
MDWORKBENCH = Result(
    "results/runs/mdworkbench/{backend}/{interface}/c{ranks}-s{servers}-D{dsets}-P{precreate}-I{objects}-S{size}"
    "-R{iterations}-O{offset}-w{stonewall}-W{wearout}/rep{rep}/phases.jsonl",
    ("precreate", "benchmark", "cleanup"),
    "results/benchmarks/mdworkbench/{backend}/{interface}/c{ranks}-s{servers}-D{dsets}-P{precreate}-I{objects}"
    "-S{size}-R{iterations}-O{offset}-w{stonewall}-W{wearout}/rep{rep}.tsv", "mdworkbench")
RUN_RULES = dict(RESULTS, mdworkbench=MDWORKBENCH)
# MD-Workbench's tool, and the servers, DeltaFS writer and compactor behind its interfaces.
MDWB_TOOLS = ("deltameta_mdworkbench", "deltameta_server", "deltameta_client_store", "deltameta_compactor")
RADOS_TOOLS = ("deltameta_storage",)  # stores in RADOS are cleared and checked with it


def tools_needed(config):
    """{tool: the runs that start it, and the configuration key that switches them off} for
    every core tool the runs of a (validated) configuration start."""
    needed = {}
    for name in config["systems"]:
        for tool in SYSTEMS[name].tools:
            needed.setdefault(tool, f"the {SYSTEMS[name].label} runs (off: leave {name} out of systems)")
    if config["mdworkbench"]["interfaces"]:
        for tool in MDWB_TOOLS:
            needed.setdefault(tool, "the MD-Workbench runs (off: mdworkbench: {interfaces: []})")
    if config["storage"] == "rados":
        for tool in RADOS_TOOLS:
            needed.setdefault(tool, "stores in RADOS (off: storage: posix)")
    return needed
