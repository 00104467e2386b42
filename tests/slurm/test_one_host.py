"""The workflow through its Slurm profile on a one-host Slurm cluster (conftest.py): MPI jobs
started by srun --mpi=pmi2 end cleanly on the PMI path the core takes for TCP transports; a
run whose job exceeds its time limit, and a run whose job is cancelled (scancel), fail
naming the run and Slurm's reason, leave no job queued or running, and a rerun redoes only
that run. Where a Docker engine answers, the smoke profile and a node lost mid-run are
tested on the multi-node Docker cluster instead (tests/docker/test_slurm_cluster.py);
without Docker they run here."""
import glob
import json
import os
import shutil
import signal
import subprocess

import pytest

from slurm_helpers import (REPO, SlurmWorkflow, copy_profile, jobcomp, queued_jobs, resume_node, run_docs,
                           wait_for)

BUILD = os.environ.get("DELTAMETA_BUILD_DIR", os.path.join(REPO, "build", "core"))
# Two runs, one Slurm job each, so that one can fail while the other completes.
TWO_RUNS = {"name": "slurm-failures", "systems": ["indexfs"], "client_ranks": [1, 2], "repetitions": 1,
            "job_timeout_s": 600, "mdworkbench": {"interfaces": []}}


def docker_answers():
    return bool(shutil.which("docker")) and subprocess.run(["docker", "info"], capture_output=True).returncode == 0


def test_srun_jobs_over_tcp_end_cleanly(slurm_cluster, tmp_path):
    """Ranks on UCX's TCP transport end through PMI-1 `finalize` on PMI_FD (mpi_session.h);
    Slurm's pmi2 plugin answers it `cmd=finalize_ack rc=0`, which the core must accept."""
    tools = {name: os.path.join(BUILD, "deltameta_" + name) for name in ("client_store", "compactor")}
    if not all(os.access(t, os.X_OK) for t in tools.values()):
        pytest.skip(f"the core's tools are not built in {BUILD} (scripts/build-core.sh)")
    env = dict(os.environ, UCX_TLS="tcp,self", DELTAFS_Db_compression="1")
    origin = tmp_path / "origin"
    write = subprocess.run(["srun", "--mpi=pmi2", "-n", "3", tools["client_store"], "--share_dir=1", "--n=2000",
                            "--read_phases=0", "--skip_fs_checks=1", "--fs_use_local=1", f"--db={origin}",
                            f"--json={tmp_path / 'write.jsonl'}"], capture_output=True, text=True, timeout=120, env=env)
    assert write.returncode == 0, write.stdout[-2000:] + write.stderr[-2000:]
    for i in range(3):
        out = tmp_path / f"compact{i}.jsonl"
        res = subprocess.run(["srun", "--mpi=pmi2", "-n", "3", tools["compactor"], f"--src_dir={origin}",
                              f"--dst_dir={tmp_path / f'dst{i}'}", f"--json={out}"],
                             capture_output=True, text=True, timeout=120, env=env)
        assert res.returncode == 0, res.stderr[-2000:]
        assert "did not acknowledge" not in res.stderr
        doc = json.loads(out.read_text().splitlines()[0])
        assert doc["ops"] == 3 * 2000 and doc["placement"]["ucx_tls"] == "tcp,self"
        assert doc["placement"]["ucx_net_devices"] == "lo"  # one node: loopback only (mpi_session.h)


@pytest.mark.skipif("docker_answers()", reason="a Docker engine answers: tests/docker/test_slurm_cluster.py "
                    "runs the smoke profile on the multi-node Slurm cluster")
def test_smoke_profile_completes_one_job_per_run(slurm_cluster, tmp_path):
    wf = SlurmWorkflow(tmp_path)
    res = wf.run()
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert "was never awaited" not in res.stdout + res.stderr  # Snakemake's noise, silenced by the Snakefile
    with open(wf.path("results", "smoke", "validation.json")) as f:
        assert json.load(f)["ok"] is True
    check_one_completed_job_per_run(run_docs(wf.workdir), jobcomp(os.path.join(slurm_cluster, "jobcomp.log")))
    with open(wf.path("results", "smoke", "provenance.json")) as f:
        placement = json.load(f)["placement"]
    assert all("slurm" in phase for run in placement.values() for phase in run.values())
    assert queued_jobs() == []


def check_one_completed_job_per_run(docs, completed):
    """Every run names its own Slurm job, which the job completion log records as COMPLETED on
    the nodes the run says it had, its ranks on those nodes."""
    job_ids = []
    for path, phases in docs.items():
        jobs = {d["slurm"]["job_id"] for d in phases}
        assert len(jobs) == 1, (path, jobs)
        job = jobs.pop()
        job_ids.append(job)
        assert completed[job]["JobState"] == "COMPLETED", (path, completed[job])
        nodes = phases[0]["slurm"]["nodes"]
        assert all(set(d["placement"]["rank_hosts"]) <= set(hosts_of(nodes, completed[job])) for d in phases), path
    assert len(job_ids) == len(set(job_ids)) == len(docs)


def hosts_of(nodes, record):
    """Host names of a job's nodes: the one-host cluster's node answers to this host's name."""
    return nodes + [os.uname().nodename] if record.get("NodeCnt") == "1" else nodes


def runs_py(workdir):
    """PIDs of the run driver (core/bench/runs.py) of a run in `workdir`, started inside a Slurm job."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().decode(errors="replace").split("\0")
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if any(a.endswith("runs.py") for a in args) and "--mpiexec" in args and \
                args[args.index("--mpiexec") + 1].endswith("srun_mpiexec.py") and cwd.startswith(workdir):
            pids.append(int(pid))
    return pids


def finished_and_failed(wf, output):
    """(results of the runs that completed, the run whose result is missing) after a failure."""
    done = {p: os.path.getmtime(p) for p in run_docs(wf.workdir)}
    missing = [p for p in glob.glob(wf.path("results", "runs", "indexfs", "posix", "c*")) if
               not os.path.exists(os.path.join(p, "rep1", "phases.jsonl"))]
    assert len(done) == 1 and len(missing) == 1, (done, missing, output[-3000:])
    run = os.path.relpath(missing[0], wf.workdir)
    assert "Error in rule indexfs" in output and run in output, output[-4000:]
    return done, run


def rerun_redoes_only(wf, done, run):
    # At once: the rerun's attempt waits for what the stopped job left (slurm_attempt.py).
    res = SlurmWorkflow(wf.workdir, overrides=TWO_RUNS).run()
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert all(os.path.getmtime(p) == t for p, t in done.items()), "a run that had completed was redone"
    assert os.path.exists(wf.path(run, "rep1", "phases.jsonl"))
    assert queued_jobs() == []


def test_a_job_over_its_time_limit_fails_its_run_and_a_rerun_redoes_it(slurm_cluster, tmp_path):
    profile = copy_profile(str(tmp_path / "profile"), indexfs=1)  # a one-minute limit
    os.makedirs(tmp_path / "work")
    wf = SlurmWorkflow(tmp_path / "work", profile=profile, overrides=TWO_RUNS)
    proc = wf.start()
    try:
        # The first run's driver hangs (stopped), so its job runs into its time limit.
        pid = wait_for(lambda: runs_py(wf.workdir), 180, "a run's job started", proc)[0]
        os.kill(pid, signal.SIGSTOP)
        output, _ = proc.communicate(timeout=400)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0, output[-4000:]
    assert "TIMEOUT" in output, output[-4000:]
    done, run = finished_and_failed(wf, output)
    assert queued_jobs() == []
    rerun_redoes_only(wf, done, run)


def test_a_cancelled_job_fails_its_run_and_a_rerun_redoes_it(slurm_cluster, tmp_path):
    wf = SlurmWorkflow(tmp_path, overrides=TWO_RUNS)
    proc = wf.start()
    try:
        wait_for(lambda: runs_py(wf.workdir), 180, "a run's job started", proc)
        running = [job for job, state in queued_jobs() if state == "RUNNING"]
        assert len(running) == 1, queued_jobs()
        subprocess.run(["scancel", running[0]], check=True, timeout=60)
        output, _ = proc.communicate(timeout=400)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0, output[-4000:]
    assert f"SLURM-job '{running[0]}' failed, SLURM status is: 'CANCELLED'" in output, output[-4000:]
    done, run = finished_and_failed(wf, output)
    assert queued_jobs() == []
    rerun_redoes_only(wf, done, run)


@pytest.mark.skipif("docker_answers()", reason="a Docker engine answers: tests/docker/test_slurm_cluster.py "
                    "stops a node of the multi-node Slurm cluster instead")
def test_a_node_going_down_fails_its_run_and_a_rerun_redoes_it(slurm_cluster, tmp_path):
    node = subprocess.run(["sinfo", "-h", "-o", "%N"], capture_output=True, text=True).stdout.strip()
    wf = SlurmWorkflow(tmp_path, overrides=TWO_RUNS)
    proc = wf.start()
    try:
        wait_for(lambda: runs_py(wf.workdir), 180, "a run's job started", proc)
        subprocess.run(["scontrol", "update", f"NodeName={node}", "State=DOWN", "Reason=deltameta test"],
                       check=True, timeout=60)
        wait_for(lambda: not any(s == "RUNNING" for _, s in queued_jobs()), 120, "the job on the lost node ended")
        resume_node(node)
        output, _ = proc.communicate(timeout=400)
    finally:
        if proc.poll() is None:
            proc.kill()
        resume_node(node)
    assert proc.returncode != 0, output[-4000:]
    assert "NODE_FAIL" in output, output[-4000:]
    done, run = finished_and_failed(wf, output)
    assert queued_jobs() == []
    rerun_redoes_only(wf, done, run)
