# The pre-flight (workflows/environment/preflight.py), called by the Snakefile's onstart: so
# never on a dry run (-n), --lint or --report, nor when there is nothing to do. It probes
# the machine, checks it against the strictest of the claims' conditions (paper/claims.yaml),
# prints a short block to stderr, records it in PREFLIGHT_FILE (rule provenance
# copies it into provenance.json) and, with strict_environment, stops the run before any job
# if a condition of the claims is not met here.
import sys

from workflows.claims.check import load_claims
from workflows.environment.conditions import strictest
from workflows.environment.preflight import preflight

PREFLIGHT_FILE = f"{OUT}/preflight.json"
# --config strict_environment=true arrives as the text "true" (config/schema.yaml)
STRICT_ENVIRONMENT = config["strict_environment"] in (True, "true")


def preflight_paths():
    """{label: path} of every folder this configuration keeps data in on a file system: its
    results, the runs' work folders and (posix) stores, the storage floor's scratch and the
    throw-away Ceph cluster's folder."""
    paths = {f"{OUT}/": OUT, "results/runs/": "results/runs"}
    # FLOOR_DIR is floor.smk's, included after this file: read when the pre-flight runs
    if STORAGE == "posix":
        paths[f"{FLOOR_DIR}/"] = FLOOR_DIR
    if THROWAWAY_CLUSTER:
        paths["results/ceph/"] = "results/ceph"
    return paths


def preflight_or_stop():
    """The pre-flight; exits the workflow (status 1) when it says the run must stop. Its one
    line is already printed: a WorkflowError would add the Snakefile's traceback to it."""
    if not preflight(
        workflow.cores,
        preflight_paths(),
        PREFLIGHT_FILE,
        STRICT_ENVIRONMENT,
        strictest(load_claims(CLAIMS_FILE)["claims"]),
        rados_root=RADOS_ROOT if STORAGE == "rados" else None,
    ):
        sys.exit(1)
