"""Bad configuration and failing runs: a clear message naming the problem, a non-zero exit,
and no process left behind (also after a Ctrl-C of snakemake)."""
import os
import signal
import subprocess
import time

from conftest import deltameta_processes


def test_schema_rejects_bad_values_naming_the_key(workflow_in):
    for override, key in [({"files_per_rank": 0}, "files_per_rank"), ({"systems": ["lustre"]}, "lustre"),
                          ({"client_ranks": []}, "client_ranks"), ({"colour": "blue"}, "colour"),
                          ({"store_settings": {"bloom_bits": 3}}, "bloom_bits")]:
        res = workflow_in.run("--dry-run", overrides=override)
        assert res.returncode != 0, override
        assert key in res.stdout + res.stderr, override


def test_failing_run_fails_clearly_and_leaves_no_process(workflow_in):
    # l0_hard_limit below l0_soft_limit: the servers refuse to start.
    res = workflow_in.run(overrides={"systems": ["indexfs"], "client_ranks": [1], "repetitions": 1,
                                     "store_settings": {"DELTAFS_Db_l0_hard_limit": 2}})
    assert res.returncode != 0
    logs = []
    for dirpath, _, files in os.walk(workflow_in.path("results", "logs", "indexfs")):
        logs += [open(os.path.join(dirpath, f)).read() for f in files]
    assert any("DELTAFS_Db_l0_hard_limit must be >= DELTAFS_Db_l0_soft_limit" in log for log in logs)
    assert "servers exited with code" in res.stderr
    assert deltameta_processes(workflow_in.workdir) == []


def test_ctrl_c_stops_servers_and_jobs(workflow_in):
    proc = subprocess.Popen(workflow_in.command(overrides={"systems": ["indexfs"], "client_ranks": [2],
                                                           "repetitions": 1, "files_per_rank": 400000}),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not any("deltameta_client" in args for _, args in deltameta_processes(workflow_in.workdir)):
            assert proc.poll() is None and time.monotonic() < deadline, "the client job never started"
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=120) != 0
        deadline = time.monotonic() + 30
        while deltameta_processes(workflow_in.workdir) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert deltameta_processes(workflow_in.workdir) == []
    finally:
        if proc.poll() is None:
            proc.kill()


def test_client_over_its_time_limit_is_stopped_with_its_servers(workflow_in):
    res = workflow_in.run(overrides={"systems": ["indexfs"], "client_ranks": [2], "repetitions": 1,
                                     "files_per_rank": 5000000, "job_timeout_s": 10})
    assert res.returncode != 0
    assert "did not finish within 10 s" in res.stderr
    assert deltameta_processes(workflow_in.workdir) == []
