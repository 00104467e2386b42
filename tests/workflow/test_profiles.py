"""Every profile in config/profiles/ is a valid configuration (config/config.yaml under it,
checked against config/schema.yaml), and the scale profile sweeps files per rank: a dry
run plans its runs at each value."""
import glob
import os

import pytest
import yaml
from snakemake.utils import update_config, validate

from workflow_helpers import REPO, Workflow

PROFILES = sorted(glob.glob(os.path.join(REPO, "config", "profiles", "*.yaml")))
SCALE = os.path.join(REPO, "config", "profiles", "scale.yaml")


def load(path):
    with open(path) as f:
        return yaml.safe_load(f)


def test_the_profiles_are_the_ones_documented():
    names = {os.path.basename(p) for p in PROFILES}
    assert {"smoke.yaml", "paper.yaml", "scale.yaml", "rados.yaml"} <= names
    with open(os.path.join(REPO, "config", "README.md")) as f:
        readme = f.read()
    assert all(f"`profiles/{name}`" in readme for name in names)


@pytest.mark.parametrize("profile", PROFILES, ids=os.path.basename)
def test_profile_validates_against_the_schema(profile):
    config = load(os.path.join(REPO, "config", "config.yaml"))
    update_config(config, load(profile))
    validate(config, os.path.join(REPO, "config", "schema.yaml"))
    assert config["name"] == os.path.splitext(os.path.basename(profile))[0]


def test_scale_profile_plans_every_run_at_each_files_per_rank(tmp_path):
    scale = load(SCALE)
    assert scale["files_per_rank"] == [50000, 200000, 1000000] and scale["client_ranks"] == [4]
    assert scale["repetitions"] == 3 and scale["mdworkbench"]["interfaces"] == []
    res = Workflow(tmp_path, profile=SCALE).run("--dry-run")
    assert res.returncode == 0, res.stderr[-3000:]
    for n in scale["files_per_rank"]:
        for run in (f"indexfs/posix/c4-s2-n{n}/rep3", f"indexfs-bulk/posix/c4-s2-n{n}/rep3",
                    f"deltafs/posix/c4-n{n}/rep3/r4/read.jsonl"):
            assert f"results/runs/{run}" in res.stdout, run
    assert "results/scale/figures/scale_throughput.png" in res.stdout
