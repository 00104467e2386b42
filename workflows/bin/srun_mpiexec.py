#!/usr/bin/env python3
"""mpiexec's command line, run as a Slurm job step: what core/bench/runs.py's launcher
(`-n N [-hosts H1:1,H2:1 | -f HOSTFILE] [-env NAME VALUE]... PROGRAM ARGS...`) asks of
mpiexec, done by srun inside the current allocation. The workflow's Slurm profile makes it
the jobs' launcher (workflows/bin/slurm_run.py); config/README.md, "Slurm", says why
srun and not mpiexec.

Every step may share the allocation's CPUs with the others (--overlap: the IndexFS servers
run beside their clients) and hold more ranks than CPUs (--overcommit, as mpiexec does);
ranks go to the hosts given, one per host in turn (--distribution=cyclic, as mpiexec
-hosts H:1 does), and a rank that fails ends the step (--kill-on-bad-exit). The srun
options before these come from DELTAMETA_SRUN_ARGS (default --mpi=pmi2: MPICH's PMI
through Slurm); hosts given by address are named as DELTAMETA_SLURM_NODES
("ADDRESS=NODE ...", from slurm_run.py) says.

SIGTERM or SIGINT to this process reaches every rank once, as that signal, as with mpiexec
(the servers then make their stores durable and exit 0). srun itself would answer SIGTERM
by killing the step, and `scancel --signal` on a step sometimes delivers the signal twice
here (Slurm 22.05; a second SIGTERM kills a server that is already ending), so a helper
step on the step's nodes sends it to the ranks' processes that `scontrol listpids` names
(the step is found by its name); scancel only where that helper cannot run. srun dies with
this process."""
import ctypes
import os
import shlex
import signal
import subprocess
import sys
import time

PR_SET_PDEATHSIG = 1


def fail(message):
    sys.exit(f"srun_mpiexec: {message}")


def parse(args):
    """(ranks, hosts, env, program and its arguments) of an mpiexec command line."""
    ranks, hosts, env = None, [], {}
    i = 0
    while i < len(args) and args[i].startswith("-"):
        opt = args[i]
        if opt in ("-n", "-np") and i + 1 < len(args):
            ranks, i = args[i + 1], i + 2
        elif opt == "-hosts" and i + 1 < len(args):
            hosts, i = [h.split(":", 1)[0] for h in args[i + 1].split(",") if h], i + 2
        elif opt == "-f" and i + 1 < len(args):
            with open(args[i + 1]) as f:
                lines = [line.split("#", 1)[0].strip() for line in f]
            hosts, i = [line.split(":", 1)[0] for line in lines if line], i + 2
        elif opt == "-env" and i + 2 < len(args):
            env[args[i + 1]], i = args[i + 2], i + 3
        else:
            fail(f"mpiexec option {opt} is not supported (supported: -n, -hosts, -f, -env)")
    if ranks is None or not ranks.isdigit() or int(ranks) < 1:
        fail("no rank count (-n N) before the program")
    if i == len(args):
        fail("no program to run")
    return int(ranks), list(dict.fromkeys(hosts)), env, args[i:]


def srun_command(ranks, hosts, program, step_name):
    if not os.environ.get("SLURM_JOB_ID"):
        fail("not inside a Slurm allocation (no SLURM_JOB_ID): run the workflow with its Slurm profile "
             "(--workflow-profile config/profiles/slurm) or inside salloc")
    cmd = ["srun"] + shlex.split(os.environ.get("DELTAMETA_SRUN_ARGS", "--mpi=pmi2"))
    cmd += ["--overlap", "--overcommit", "--kill-on-bad-exit=1", "--job-name", step_name, "--ntasks", str(ranks)]
    if hosts:
        names = dict(pair.split("=", 1) for pair in os.environ.get("DELTAMETA_SLURM_NODES", "").split() if "=" in pair)
        # fewer ranks than hosts: the first hosts, as mpiexec -hosts does
        hosts = [names.get(h, h) for h in hosts[:ranks]]
        cmd += ["--nodes", str(len(hosts)), "--nodelist", ",".join(hosts), "--distribution", "cyclic"]
    return cmd + program


def step_id(name):
    """JOB.STEP of this allocation's step named `name`, or None while it is not running."""
    try:
        res = subprocess.run(["squeue", "--steps", "--noheader", "--jobs", os.environ["SLURM_JOB_ID"],
                              "--format", "%i %j"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in res.stdout.splitlines():
        step, _, step_name = line.strip().partition(" ")
        if step_name == name:
            return step
    return None


def signal_ranks(step, hosts, sig, name):
    """Sends signal `sig` once to every rank of `step` (on `hosts`) through a helper step.
    False if it could not (no hosts known, or the helper failed)."""
    if not hosts:
        return False
    script = f"scontrol listpids {step} | awk 'NR > 1 && $5 ~ /^[0-9]+$/ {{print $1}}' | xargs -r kill -{sig}"
    cmd = ["srun", "--overlap", "--job-name", name + "-signal", "--nodes", str(len(hosts)), "--ntasks",
           str(len(hosts)), "--nodelist", ",".join(hosts), "sh", "-c", script]
    try:
        return subprocess.run(cmd, capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def die_with_parent():
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def main():
    ranks, hosts, env, program = parse(sys.argv[1:])
    name = f"deltameta-{os.path.basename(program[0])}-{os.getpid()}"
    cmd = srun_command(ranks, hosts, program, name)
    step_hosts = cmd[cmd.index("--nodelist") + 1].split(",") if "--nodelist" in cmd else []
    os.environ.update(env)
    try:
        proc = subprocess.Popen(cmd, preexec_fn=die_with_parent)
    except OSError as e:
        fail(f"cannot run srun: {e.strerror}: install Slurm's client (slurm-client) on this node")

    def forward(signum, frame):
        signame = signal.Signals(signum).name
        for _ in range(20):  # the step may not be listed yet, or slurmctld may be slow to answer
            step = step_id(name)
            if step or proc.poll() is not None:
                break
            time.sleep(0.5)
        if step:
            print(f"srun_mpiexec: {signame} to step {step} ({name})", file=sys.stderr, flush=True)
            if not signal_ranks(step, step_hosts, signame[3:], name):
                subprocess.run(["scancel", "--quiet", f"--signal={signame[3:]}", step], capture_output=True, timeout=30)
        elif proc.poll() is None:
            print(f"srun_mpiexec: {signame}: step {name} not found in squeue; stopping srun", file=sys.stderr,
                  flush=True)
            proc.terminate()  # srun ends the step it started
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, forward)
    while True:
        try:
            rc = proc.wait()
            break
        except InterruptedError:
            time.sleep(0.01)
    sys.exit(rc if rc >= 0 else 128 - rc)


if __name__ == "__main__":
    main()
