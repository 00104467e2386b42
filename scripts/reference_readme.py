"""Writes results/reference/README.md for scripts/update-reference.sh: which run the tracked
reference is (command, date, wall time, machine, revision, versions) and what its claims
check said. Usage: reference_readme.py REFERENCE_DIR WALL_MINUTES > README.md"""
import datetime
import json
import os
import platform
import re
import sys


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
            cpu = m.group(1).strip() if m else cpu
        with open("/proc/meminfo") as f:
            mem = int(re.search(r"MemTotal:\s*(\d+)", f.read()).group(1)) / 2**20
    except (OSError, AttributeError):
        mem = 0
    os_name = "unknown OS"
    try:
        with open("/etc/os-release") as f:
            os_name = re.search(r'^PRETTY_NAME="?([^"\n]+)', f.read(), re.M).group(1)
    except (OSError, AttributeError):
        pass
    return f"{os.cpu_count()} CPUs ({cpu}), {mem:.0f} GiB, {os_name}, Linux {platform.release()}"


def main(ref, minutes):
    with open(os.path.join(ref, "provenance.json")) as f:
        prov = json.load(f)
    with open(os.path.join(ref, "claims.json")) as f:
        claims = json.load(f)
    c, cfg = claims["counts"], prov["config"]
    packages = ", ".join(f"{k} {v}" for k, v in sorted(prov.get("python_packages", {}).items()))
    print(f"""# Reference run

The outputs of one run of the default configuration, kept so that a reviewer can compare a
rerun against them; its figures are `paper/figures/`, its claims `paper/claims.md`, its
artifact appendix (with each step's time) `paper/artifact-appendix.md`. Written
by `scripts/update-reference.sh`, which made this run; run it again (on a clean, committed
tree) to replace it.

- Command: `bash scripts/update-reference.sh` (runs `bash scripts/run-all.sh`: `config/config.yaml`,
  {cfg['client_ranks']} client ranks x {cfg['files_per_rank']} files, {cfg['servers']} IndexFS servers,
  {cfg['readers']} DeltaFS readers, {cfg['repetitions']} repetitions).
- Date: {datetime.date.today().isoformat()}; wall time: {minutes} minutes (core build included when it ran).
- Machine: {machine()}.
- Revision: {prov['git_revision']} (git_dirty: {str(prov['git_dirty']).lower()}); Python {prov.get('python')},
  {packages}.
- Claims: {c['held']} held, {c['failed']} failed, {c.get('not comparable here', 0)} not comparable here,
  {c['not tested']} not tested (`claims.md`).

| file | what |
| --- | --- |
| `summary.csv` | one row per system x phase x scale x repetition |
| `results-table.md` | median and range over repetitions |
| `claims.md`, `claims.json` | the paper's claims checked on this run |
| `validation.json` | every run's op counts exact and zero errors |
| `provenance.json` | configuration, versions, host |
| `floor.md`, `floor.csv` | each phase's bytes/s beside the storage floor fio measured |
| `projection-inputs.csv`, `projection-validation.csv` | the projection model's inputs and its error at every \
measured configuration (a model; `paper/projection.md`) |
| `mdworkbench/table.md`, `summary.csv`, `validation.json` | the MD-Workbench runs: rates and latency \
quantiles per interface and op type, every run checked |

Throughputs on a 2-core machine vary by 10-20% between runs (the lstat phases more); compare
ratios within a run, as the claims do.""")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: reference_readme.py REFERENCE_DIR WALL_MINUTES > README.md")
    main(sys.argv[1], sys.argv[2])
