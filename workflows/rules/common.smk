# The experiment matrix of this configuration: its systems (workflows/registry.py
# names them), the result files of their runs, and where the configuration's conclusions go;
# also where the core's tools are.
import os

from snakemake.exceptions import WorkflowError

from workflows.launch.build_original import original_refusal
from workflows.registry import DESIGNS, IMPLEMENTATIONS, MDWORKBENCH, PHASES, SYSTEMS, results_of

REPO = workflow.basedir
TOOLS = "results/core/tools.json"  # the build rule's: where the core's tools are
ORIGINAL_TOOLS = "results/original/tools.json"  # where the original prototype's tools are (build_original)
BUILD_BENCHMARK = "results/benchmarks/build_core.tsv"  # the build rule's wall time
APPENDIX_SOURCE = os.path.join(REPO, "paper", "appendix.md")  # filled in by rule artifact_appendix
FIGURES = [
    "insert_throughput",
    "lstat_throughput",
    "compaction_throughput",
    "end_to_end_time",
    "latency_quantiles",
    "cpu_per_mop",
]
# What a configuration concludes (validation, summary, provenance, claims, figures, tables)
# goes to its own folder, results/<name>/, so that no configuration overwrites another's
# and no run touches a tracked file. Runs are shared by their coordinates (results/runs/).
OUT = f"results/{config['name']}"
CLAIMS_FILE = os.path.join(REPO, config["claims"])
# The report's front page (rule front_page) and the workflow's description it starts with
FRONT_PAGE = f"{OUT}/front-page.rst"
DESCRIPTION = os.path.join(REPO, "workflows", "report", "workflow.rst")
# Files per client rank: one value or a list of them (config key files_per_rank); every run at each.
N = config["files_per_rank"] if isinstance(config["files_per_rank"], list) else [config["files_per_rank"]]
REPS = range(1, config["repetitions"] + 1)
STORAGE = config["storage"]
UNKNOWN_SYSTEMS = [s for s in config["systems"] if s not in SYSTEMS]
IMPLS = config["implementations"]
ORIGINAL_REFUSED = original_refusal(IMPLS, STORAGE, config["original"])
if ORIGINAL_REFUSED:
    raise WorkflowError(ORIGINAL_REFUSED)
if UNKNOWN_SYSTEMS:
    raise WorkflowError(
        f"systems: unknown {', '.join(UNKNOWN_SYSTEMS)}; the systems are {', '.join(SYSTEMS)} "
        "(workflows/registry.py)"
    )
CEPHFS_SYSTEM = "cephfs" in config["systems"]  # its MDS runs in the RADOS stores' cluster
if CEPHFS_SYSTEM and STORAGE != "rados":
    raise WorkflowError(
        "systems: cephfs needs storage: rados (its MDS runs in that Ceph cluster): "
        "use config/profiles/rados.yaml, or leave cephfs out"
    )


def report_front_page():
    """The report's front page: this configuration's, once a run wrote it, else the description."""
    return os.path.abspath(FRONT_PAGE) if os.path.exists(FRONT_PAGE) else DESCRIPTION


def all_run_results():
    """The result file of every run of the configured systems."""
    return run_files("path")


def all_run_benchmarks():
    """The wall-time file (the rule's `benchmark:`) of every run of the configured systems."""
    return run_files("benchmark")


def run_steps():
    """[(step label, its runs' wall-time files)] per run rule of the configured systems (and,
    with several files_per_rank, per value), in the registry's order of systems and phases,
    then MD-Workbench's, for the artifact appendix's time estimates."""
    steps = []
    for system, impl in ((system, impl) for impl in IMPLS for system in config["systems"]):
        s = SYSTEMS[system]
        results = results_of(s, impl)
        for rule, result in sorted(results.items(), key=lambda item: PHASES.index(item[1].phases[0])):
            part = rule.removeprefix(IMPLEMENTATIONS[impl].rule_prefix).removeprefix(system.replace("-", "_"))
            part = part.lstrip("_")
            name = f"run {s.run} {s.label}" if s.run else s.label
            label = f"{name}, {part} (`{rule}`)" if part else f"{name} (`{rule}`)"
            for n in N:
                at = f", {n:,} files per rank" if len(N) > 1 else ""
                steps.append((label + at, expand_run(result.benchmark, n=[n], implementation=impl)))
    if MDWB["interfaces"]:
        steps.append(("MD-Workbench (`mdworkbench`)", mdworkbench_results("benchmark")))
    return steps


def run_files(field):
    return [
        path
        for impl in IMPLS
        for system in config["systems"]
        for result in results_of(SYSTEMS[system], impl).values()
        for path in expand_run(getattr(result, field), implementation=impl)
    ]


def expand_run(pattern, n=N, implementation="deltameta"):
    """`pattern` (a run rule's file, with its wildcards) at every point of the matrix (or at
    the files per rank `n`), each file once (a pattern without {readers} or {servers}
    repeats across their values). The original's parallel compactor reads one writer store
    per rank, so its DeltaFS runs compact and read with as many ranks as wrote."""
    points = [
        (ranks, [ranks] if implementation == "original" else config["readers"]) for ranks in config["client_ranks"]
    ]
    return list(
        dict.fromkeys(
            path
            for ranks, readers in points
            for path in expand(
                pattern,
                backend=STORAGE,
                ranks=[ranks],
                servers=config["servers"],
                readers=readers,
                n=n,
                rep=REPS,
            )
        )
    )


def fidelity_outputs():
    """Rule fidelity's outputs, when both implementations run (none otherwise)."""
    if not {"deltameta", "original"} <= set(IMPLS):
        return []
    return [f"{OUT}/fidelity.md", f"{OUT}/fidelity.csv", f"{OUT}/figures/fidelity.pdf", f"{OUT}/figures/fidelity.png"]


def production_outputs():
    """Rule production_table's output (workflows/rules/cephfs.smk) when systems lists cephfs (none otherwise)."""
    return [f"{OUT}/production.md"] if CEPHFS_SYSTEM else []


def projection_outputs():
    """Rule projection's outputs (workflows/rules/projection.smk), when our core runs a
    design: the model is of its designs' costs, so `implementations: [original]` alone, or
    `systems: [cephfs]` alone, has none."""
    if "deltameta" not in IMPLS or not set(config["systems"]) & set(DESIGNS):
        return []
    return [
        f"{OUT}/projection-inputs.csv",
        f"{OUT}/projection-validation.csv",
        f"{OUT}/projection.md",
        f"{OUT}/figures/projection.pdf",
        f"{OUT}/figures/projection.png",
    ]


# MD-Workbench (workflows/rules/mdworkbench.smk), a run of its own beside the systems.
MDWB = config["mdworkbench"]
CEPHFS_MDWB = "cephfs" in MDWB["interfaces"]  # its MDS runs in the RADOS stores' cluster
if CEPHFS_MDWB and STORAGE != "rados":
    raise WorkflowError(
        "mdworkbench.interfaces: cephfs needs storage: rados (its MDS runs in that Ceph cluster): "
        "use config/profiles/rados.yaml, or leave cephfs out"
    )
CEPHFS = CEPHFS_SYSTEM or CEPHFS_MDWB  # the throw-away cluster then runs an MDS and the CephFS
MDWB_OUT = f"{OUT}/mdworkbench"
MDWB_LOG = MDWORKBENCH.benchmark.replace("results/benchmarks/", "results/logs/", 1).replace(".tsv", ".log")


def mdworkbench_results(field="path"):
    """The result file (or with field "benchmark" the wall-time file) of every MD-Workbench run
    of this configuration (none when no interface is configured)."""
    return expand(
        getattr(MDWORKBENCH, field),
        backend=STORAGE,
        interface=MDWB["interfaces"],
        ranks=MDWB["ranks"],
        servers=MDWB["servers"],
        dsets=MDWB["data_sets"],
        precreate=MDWB["precreate_per_set"],
        objects=MDWB["objects_per_set"],
        size=MDWB["object_size"],
        iterations=MDWB["iterations"],
        offset=MDWB["offset"],
        stonewall=MDWB.get("stonewall_timer", 0),
        wearout=int(MDWB.get("stonewall_wear_out", False)),
        rep=range(1, MDWB["repetitions"] + 1),
    )


def mdworkbench_outputs():
    """The MD-Workbench outputs the default target asks for: validation, table, figure (none when it does not run)."""
    if not MDWB["interfaces"]:
        return []
    return [
        f"{MDWB_OUT}/validation.json",
        f"{MDWB_OUT}/summary.csv",
        f"{MDWB_OUT}/table.md",
        f"{OUT}/figures/mdworkbench_latency.pdf",
        f"{OUT}/figures/mdworkbench_latency.png",
    ]


wildcard_constraints:
    ranks=r"\d+",
    servers=r"\d+",
    readers=r"\d+",
    n=r"\d+",
    rep=r"\d+",
    backend=r"posix|rados",
    interface=r"posix|indexfs|deltafs|cephfs",
    dsets=r"\d+",
    precreate=r"\d+",
    objects=r"\d+",
    size=r"\d+",
    iterations=r"\d+",
    offset=r"\d+",
