"""The deltameta workflow's Python, one package imported from the repository's root (the
Snakefile's folder) as `workflows`. Its root holds what every wing uses: the designs the
workflow runs (registry.py) and how a rejected configuration is said (config_errors.py).
Each wing owns one feature; a wing imports the root and the wings listed before it, never
one listed after it:

  environment/  the machine probed (CPUs' use, file systems, /dev/shm), the claims' conditions
                on it, and the pre-flight that checks them when the workflow starts
  launch/       what the runs stand on: the core's tools and the original's, RADOS stores,
                Slurm attempts
  results/      the runs' results: validated, aggregated, summarised, tabled, documented
  figures/      the shared figure style and the summary's figures
  claims/       the paper's claims checked on a summary, and their figure
  fidelity/     our core against the authors' original prototype: phases and claims compared
  floor/        the storage floor: fio on the runs' storage, beside each phase's bytes/s
  projection/   the projection model, fitted on a summary and a floor
  mdworkbench/  the MD-Workbench runs: read, checked, summarised, drawn

Beside the wings: rules/ (the Snakemake rules), scripts/ (each rule's script: entry point,
named after its rule), bin/ (the command-line programs, the package's only ones, each run by
path with the package on PYTHONPATH: those the workflow starts, a run's launcher and mpiexec
under Slurm (slurm_run.py, srun_mpiexec.py), a run rerun while the machine was busy
(rerun_when_busy.py) and the throw-away Ceph cluster's watchdog (rados_watchdog.py); and the
original's build from its release archive, which the image's build runs
(build_original_tools.py)) and report/ (the report's captions).

Beneath the package: the core's benchmarks, core/bench, whose programs the workflow starts
by path (runs.py and original_runs.py the runs, store_markers.py the removal of the markers
of RADOS stores). What the two share lives there: store_markers.py owns the markers' name
and format, and repetitions.py, the median and range of repeated measurements, the workflow
imports under the benchmarks' own name (core/bench on PYTHONPATH, the Snakefile's).
core/bench imports nothing of the workflow."""
