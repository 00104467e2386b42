"""The machine a run stands on, probed: the CPUs this process may use and how busy the
machine's were (cpu.py), the file system that holds a path and its kind (mounts.py),
/dev/shm's size (shm.py); the environment each phase was measured in, from the readings
core/bench/runs.py puts in its document (phase.py); the conditions the paper's claims were
set under, from paper/claims.yaml, checked on those and on the machine (conditions.py); the
pre-flight that checks them when the workflow starts (preflight.py); and the reruns of a
run measured while other processes were busy (reruns.py)."""
