"""A changed parameter reruns exactly the runs it affects (dry runs against a finished
smoke run)."""
import re


def planned_jobs(wf, overrides):
    res = wf.run("--dry-run", overrides=overrides)
    assert res.returncode == 0, res.stderr[-2000:]
    stats = res.stdout.split("Job stats:", 1)[1]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", stats, re.M) if m.group(1) != "total"}


def test_more_readers_reruns_only_compaction_and_read(smoke):
    jobs = planned_jobs(smoke, {"readers": 3})
    runs = {k: v for k, v in jobs.items() if k in ("indexfs", "indexfs_bulk", "deltafs_write", "deltafs_compact",
                                                   "deltafs_read", "build_core")}
    assert runs == {"deltafs_compact": 4, "deltafs_read": 4}  # 2 rank counts x 2 repetitions


def test_another_rank_count_runs_only_the_new_runs(smoke):
    jobs = planned_jobs(smoke, {"client_ranks": [1, 2, 3]})
    assert jobs["indexfs"] == jobs["indexfs_bulk"] == jobs["deltafs_write"] == 2  # 2 repetitions at 3 ranks
    assert jobs["deltafs_compact"] == jobs["deltafs_read"] == 2
    assert "build_core" not in jobs


def test_new_store_setting_reruns_every_run(smoke):
    jobs = planned_jobs(smoke, {"store_settings": {"DELTAFS_Db_bloom_bits": 12}})
    assert jobs["indexfs"] == jobs["indexfs_bulk"] == jobs["deltafs_write"] == 4


def test_turning_environment_reruns_on_reruns_every_run(smoke):
    """config/README.md says so: the run rules' command lines change (rerun_when_busy.py)."""
    jobs = planned_jobs(smoke, {"environment_reruns": 1})
    assert jobs["indexfs"] == jobs["indexfs_bulk"] == jobs["deltafs_write"] == 4
    assert jobs["deltafs_compact"] == jobs["deltafs_read"] == 4 and "build_core" not in jobs
