"""Rule storage_floor: runs fio's jobs (floor/jobs.py) on the storage of
the runs, a scratch directory under results/floor/ (posix) or the runs' pool (rados), writes
fio's JSON and floor.json (the jobs, where they ran, what was removed), and always removes the
files or objects fio made, by their exact names. A missing or failing fio ends the rule with
one line naming the problem and the fix."""
import json
import os
import shutil
import subprocess
import sys

from workflows.floor.jobs import job_file, object_names, plan

INSTALL = "install it: apt-get install fio (scripts/install-deps.sh)"


def find_fio(path=None):
    """fio's path, or SystemExit with the fix."""
    fio = shutil.which("fio", path=path)
    if not fio:
        sys.exit(f"storage_floor: fio is not on PATH: {INSTALL}")
    return fio


def check_rados_engine(fio):
    res = subprocess.run([fio, "--enghelp=rados"], capture_output=True, text=True)
    if res.returncode != 0 or "pool" not in res.stdout:
        sys.exit(f"storage_floor: {fio} has no RADOS engine (fio --enghelp=rados): install Debian's fio, "
                 "which has it: apt-get install fio")


def run_fio(fio, jobs_path, json_path, log):
    """Runs fio on `jobs_path` into `json_path`; SystemExit with one line if it fails."""
    res = subprocess.run([fio, "--output-format=json", f"--output={json_path}", jobs_path], capture_output=True,
                         text=True)
    log.write(f"$ {fio} --output-format=json --output={json_path} {jobs_path}\n{res.stdout}{res.stderr}\n")
    lines = [x for x in (res.stderr + res.stdout).splitlines() if x.strip()]
    if res.returncode != 0:
        last = lines[-1] if lines else "no output"
        sys.exit(f"storage_floor: fio failed (exit {res.returncode}): {last.strip()}; see {log.name}, fix the "
                 "storage or the job file it names and rerun")
    try:
        with open(json_path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"storage_floor: fio wrote no JSON result ({e}); see {log.name}: is fio 3.x installed? {INSTALL}")
    failed = [j["jobname"] for j in doc.get("jobs", []) if j.get("error")]
    if failed:
        sys.exit(f"storage_floor: fio job(s) {', '.join(failed)} failed; see {log.name}")
    return doc


def remove_files(directory, names, log):
    """Removes the files fio made in the scratch directory, by exact name, then the directory if empty."""
    for name in names:
        path = os.path.join(directory, name)
        if os.path.lexists(path):
            os.remove(path)
    if os.path.isdir(directory) and not os.listdir(directory):
        os.rmdir(directory)
    left = sorted(set(os.listdir(directory)) & set(names)) if os.path.isdir(directory) else []
    log.write(f"removed {len(names)} scratch files from {directory}\n")
    return left


def remove_objects(conf, pool, client, names, prefix, log):
    """Removes the objects fio made in `pool`, by exact name; returns those of `prefix` still there."""
    rados = ["rados", "-c", conf, "--id", client, "-p", pool]
    for i in range(0, len(names), 64):
        res = subprocess.run(rados + ["rm", *names[i:i + 64]], capture_output=True, text=True, timeout=300)
        log.write(res.stdout + res.stderr)
    res = subprocess.run(rados + ["ls"], capture_output=True, text=True, timeout=300)
    if res.returncode != 0:
        sys.exit(f"storage_floor: cannot list pool {pool} to check the floor's objects are gone: {res.stderr.strip()}")
    left = sorted(x for x in res.stdout.split() if x.startswith(prefix))
    log.write(f"removed {len(names)} objects from pool {pool}; {len(left)} of prefix {prefix} left\n")
    return left


def main(sm):
    p = sm.params
    out_dir = os.path.dirname(sm.output.fio)
    os.makedirs(out_dir, exist_ok=True)
    jobs = plan(p.store_settings, p.data_bytes, p.storage, p.chunk_bytes)
    with open(sm.log[0], "w") as log:
        fio = find_fio()
        if p.storage == "rados":
            check_rados_engine(fio)
            # objects named after the runs' prefix and this configuration, beside the stores' objects
            prefix, scratch = f"{p.rados_prefix.replace('/', '.')}.floor.{p.name}.", ""
            text = job_file(jobs, "rados", prefix, pool=p.pool, conf=os.path.abspath(p.conf), client=p.client)
        else:
            prefix, scratch = "floor.", os.path.abspath(os.path.join(out_dir, "scratch"))
            os.makedirs(scratch, exist_ok=True)
            text = job_file(jobs, "posix", prefix, directory=scratch)
        names = object_names(jobs, prefix)
        jobs_path = os.path.join(out_dir, "jobs.fio")
        with open(jobs_path, "w") as f:
            f.write(text)
        try:
            doc = run_fio(fio, jobs_path, sm.output.fio, log)
        finally:
            if p.storage == "rados":
                left = remove_objects(p.conf, p.pool, p.client, names, prefix, log)
            else:
                left = remove_files(scratch, names, log)
        if left:
            sys.exit(f"storage_floor: {len(left)} of fio's files are still there after removal ({left[0]}, ...); "
                     f"see {log.name}")
    floor = {"storage": p.storage, "data_bytes": p.data_bytes, "store_settings": p.store_settings,
             "where": f"rados://{p.pool} (objects {prefix}*)" if p.storage == "rados" else scratch,
             "fio_version": doc.get("fio version"), "jobs": [j._asdict() for j in jobs], "removed": names,
             "left_after_removal": left}
    with open(sm.output.floor, "w") as f:
        json.dump(floor, f, indent=1)
