"""Bad configuration and failing runs: a clear message naming the problem, a non-zero exit,
and no process left behind (also after a Ctrl-C of snakemake)."""
import os

from workflow_helpers import NO_MDWB, deltameta_processes, interrupt_during_client


def test_schema_rejects_bad_values_naming_the_key(workflow_in):
    for override, key in [({"files_per_rank": 0}, "files_per_rank"), ({"systems": ["lustre"]}, "lustre"),
                          ({"client_ranks": []}, "client_ranks"), ({"colour": "blue"}, "colour"),
                          ({"store_settings": {"bloom_bits": 3}}, "bloom_bits")]:
        res = workflow_in.run("--dry-run", overrides=override)
        assert res.returncode != 0, override
        assert key in res.stdout + res.stderr, override


def test_failing_run_fails_clearly_and_leaves_no_process(workflow_in):
    # l0_hard_limit below l0_soft_limit: the servers refuse to start.
    res = workflow_in.run(overrides={**NO_MDWB, "systems": ["indexfs"], "client_ranks": [1], "repetitions": 1,
                                     "store_settings": {"DELTAFS_Db_l0_hard_limit": 2}})
    assert res.returncode != 0, res.stdout[-2000:] + res.stderr[-2000:]
    logs = []
    for dirpath, _, files in os.walk(workflow_in.path("results", "logs", "indexfs")):
        logs += [open(os.path.join(dirpath, f)).read() for f in files]
    cause = "DELTAFS_Db_l0_hard_limit must be >= DELTAFS_Db_l0_soft_limit"
    assert any(cause in log for log in logs)
    # The run's one line names the servers' own error, not only their log.
    said = [line for line in res.stderr.splitlines() if "servers exited with code" in line]
    assert said and cause in said[0], res.stderr[-2000:]
    assert deltameta_processes(workflow_in.workdir) == []


def test_ctrl_c_stops_servers_and_jobs(workflow_in):
    interrupt_during_client(workflow_in, {"systems": ["indexfs"], "client_ranks": [2], "repetitions": 1,
                                          "files_per_rank": 400000}, whole_group=False)


def test_client_over_its_time_limit_is_stopped_with_its_servers(workflow_in):
    res = workflow_in.run(overrides={**NO_MDWB, "systems": ["indexfs"], "client_ranks": [2], "repetitions": 1,
                                     "files_per_rank": 5000000, "job_timeout_s": 10})
    assert res.returncode != 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert "did not finish within 10 s" in res.stderr
    assert deltameta_processes(workflow_in.workdir) == []


def test_runs_on_fewer_hosts_than_required_fail_validation(workflow_in):
    res = workflow_in.run(overrides={**NO_MDWB, "systems": ["deltafs"], "client_ranks": [1], "repetitions": 1,
                                     "mpi": {"mpiexec": "mpiexec", "hostfile": "", "min_hosts": 2}})
    assert res.returncode != 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert ("deltafs insert with 1 client ranks x 500 files, repetition 1: ranks on 1 host(s), mpi.min_hosts is "
            "2") in res.stderr


def test_an_unreadable_hostfile_is_named(workflow_in):
    res = workflow_in.run(overrides={**NO_MDWB, "systems": ["indexfs"], "client_ranks": [1], "repetitions": 1,
                                     "mpi": {"mpiexec": "mpiexec", "hostfile": workflow_in.path("nohosts")}})
    assert res.returncode != 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert "hostfile " + workflow_in.path("nohosts") + ": No such file or directory" in res.stderr
