"""Job control for the deltameta tools under MPI, shared by the benchmarks (core/bench/*.py,
and through runs.py the workflow) and the integration tests (core/tests/integration/harness.py):
  launcher  mpiexec command lines, hostfiles, hosts that no longer answer
  job       a started job: waited for with a timeout, stopped (SIGTERM, then SIGKILL) alone
            or with its whole process tree; polling; JSON Lines results; JobError
  logged    the runs' jobs logged to one file: one-shot jobs, and server jobs that publish
            their address in a ready file
  procs     /proc: a job's process tree, tagged processes, a rank's threads, memory and CPU time
  sampler   the machine around a run: CPU counters, load and the run's own CPU, read periodically"""
from .job import Job, JobError, die_with_parent, read_json_lines, stop_on_signals, wait_until
from .launcher import Launcher, flags
from .logged import ServerJob, published_uri, run_job
from .procs import descendants, kill, process_tree, rank_cpu_s, rank_memory_kb, rank_threads, tagged
from .sampler import Sampler

__all__ = ["Job", "JobError", "Launcher", "Sampler", "ServerJob", "descendants", "die_with_parent", "flags", "kill",
           "process_tree", "published_uri", "rank_cpu_s", "rank_memory_kb", "rank_threads", "read_json_lines",
           "run_job", "stop_on_signals", "tagged", "wait_until"]
