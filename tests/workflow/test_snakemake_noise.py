"""The one warning of Snakemake's that the Snakefile silences, and only it: planning remote
(Slurm) jobs, Snakemake evaluates its default resources' input.size_mb inside its own event
loop, gives up on it (NestedCoroutineError; the value is computed when the job is
submitted) and leaves the size coroutine unawaited, one "RuntimeWarning: coroutine ... was
never awaited" per job (9 lines of `docker/cluster.sh slurm-run`). Here Snakemake's own
InputFiles in a running loop, as its planning has them: the warning comes with the
message the Snakefile's filter names (a Snakemake that renames the coroutine fails this),
the filter silences it, and any other coroutine left unawaited still warns. The Slurm
runs check that none is printed (tests/slurm/test_one_host.py, tests/docker/test_slurm_cluster.py)."""
import asyncio
import gc
import os
import re
import warnings

from snakemake.exceptions import NestedCoroutineError
from snakemake.iocontainers import InputFiles

from workflow_helpers import REPO


def snakefile_filter():
    """The message pattern of the Snakefile's filterwarnings("ignore", ..., RuntimeWarning)."""
    with open(os.path.join(REPO, "Snakefile")) as f:
        found = re.findall(r'warnings\.filterwarnings\("ignore", r"([^"]+)", RuntimeWarning\)', f.read())
    assert len(found) == 1, f"the Snakefile should silence one RuntimeWarning, not {found}"
    return found[0]


async def plan_a_job():
    """What Snakemake's planning does with a job's input.size_mb inside its event loop."""
    try:
        size = InputFiles([os.path.join(REPO, "Snakefile")]).size_mb
    except NestedCoroutineError:
        return "given up until the job runs"
    return f"evaluated: {size} MB"


async def something_else():
    pass


def warnings_of(run, silenced=None):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if silenced:
            warnings.filterwarnings("ignore", silenced, RuntimeWarning)
        run()
        gc.collect()
    return [str(w.message) for w in caught if w.category is RuntimeWarning]


def test_snakemake_leaves_the_size_coroutine_unawaited_with_the_message_the_filter_names():
    def run():
        assert asyncio.run(plan_a_job()) == "given up until the job runs"
    caught = warnings_of(run)
    assert len(caught) == 1 and caught[0].endswith("was never awaited"), caught
    assert re.match(snakefile_filter(), caught[0]), (caught, snakefile_filter())
    assert warnings_of(run, silenced=snakefile_filter()) == []


def test_the_filter_leaves_other_unawaited_coroutines_warning():
    caught = warnings_of(something_else, silenced=snakefile_filter())
    assert caught == ["coroutine 'something_else' was never awaited"], caught
