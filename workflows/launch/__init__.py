"""What the run rules stand on: the core's tools, built or found (rule build_core); the
authors' original prototype, its source checked and built as a dependency (rule
build_original, original_source.py); their
stores on RADOS, on a throw-away cluster for one invocation (RadosStores, called by the
Snakefile's handlers); one attempt of a run at a time under Slurm (slurm_attempt.py,
used by bin/slurm_run.py); and the options of a wrapped run command (command_line.py, for
bin/'s wrappers)."""
