#!/usr/bin/env python3
"""The original DeltaFS prototype's stores in Ceph RADOS (storage: rados). Its tools take
--env_use_rados=1 (and --rados_force_syncio, left at its default); the conf file
(/tmp/ceph.conf), the pool (`test`), the user (client.admin) and the cluster name are fixed in
its source. So:

- its jobs reach the cluster through CEPH_ARGS, which librados applies over the conf file it
  reads: every setting of the [global], [client] and [client.admin] sections of the cluster's
  ceph.conf (ceph_args);
- librados refuses a conf file that is not there, so while a run needs /tmp/ceph.conf and there
  is none, a placeholder holding one comment line (PLACEHOLDER) stands in for it; runs share it
  under a shared flock and the last one done removes it (FixedConf); a /tmp/ceph.conf of
  someone else's is used as it is and never removed (CEPH_ARGS still wins for every key set);
- across hosts, every rank starts as `original_rados.py exec-held TOOL ARGS...`, which holds
  its host's /tmp/ceph.conf so and execs the tool (the lock goes with it), and once the run
  is done `original_rados.py drop-placeholder` on each host removes the placeholder no rank
  holds any longer;
- its RADOS env stores the file F of a store directory D as the object named D with every /
  as _, then _F; so everything below a directory P is the objects whose names begin with
  P's name so made plus _ (object_prefix), which `remove` lists and removes by exact name.

Also a command line: `original_rados.py sweep CONF PREFIX` removes every object of the
original's runs below rados.prefix PREFIX (its runs' folder, /PREFIX/runs/original) from pool
`test` of the cluster of CONF, and fails if one is left; the workflow runs it when an invocation
ends (workflows/launch/rados_stores.py). exec-held and drop-placeholder are the ranks' and the
hosts' commands above."""
import argparse
import fcntl
import os
import subprocess
import sys

POOL = "test"  # FLAGS_rados_pool of deltafs_bm_svr, deltafs_bm_cli and parallel_compactor
USER = "admin"  # their FLAGS_rados_cli_name, client.admin
CONF_PATH = "/tmp/ceph.conf"  # their FLAGS_rados_conf
PLACEHOLDER = ("# deltameta: a placeholder for the conf file the original DeltaFS prototype reads; its settings "
               "come from CEPH_ARGS (core/bench/original_rados.py)\n")
RUNS_FOLDER = "runs/original"  # below the storage base (results/): where the original's runs keep their stores
CLIENT_SECTIONS = ("global", "client", f"client.{USER}")
BATCH = 64


class RadosError(Exception):
    """The original's stores cannot be reached or removed; the message names the fix."""


def ceph_args(conf):
    """CEPH_ARGS holding the client settings of the ceph.conf `conf`, one --key=value each."""
    args, section = [], None
    with open(conf) as f:
        for raw in f:
            line = raw.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                section = line.strip("[]").strip()
                continue
            key, sep, value = line.partition("=")
            if not sep or section not in CLIENT_SECTIONS:
                continue
            key, value = "_".join(key.split()), value.strip()
            if not value or any(c.isspace() for c in value):
                raise RadosError(f"{conf}: the value of {key} ({value!r}) is empty or holds spaces, which CEPH_ARGS "
                                 "cannot carry to the original's tools: write it without spaces (mon host: "
                                 "addresses separated by commas)")
            args.append(f"--{key}={value}")
    return " ".join(args)


def object_prefix(path):
    """The prefix of the names of every object below the store directory `path` (absolute)."""
    return path.replace("/", "_") + "_"


def rados_cmd(conf, *args):
    return ["rados", "-c", conf, "--id", USER, "-p", POOL, *args]


def run_rados(conf, timeout, *args):
    try:
        res = subprocess.run(rados_cmd(conf, *args), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RadosError(f"rados -p {POOL} {args[0]}: did not finish within {timeout} s") from None
    if res.returncode != 0:
        said = (res.stderr.strip() or "no output").splitlines()[-1]
        fix = (f"the original's tools store in pool {POOL}, fixed in their source: create it, ceph osd pool create "
               f"{POOL}") if "error opening pool" in said.lower() else (
               f"check {conf}: its mon host, and on a cluster with cephx its keyring, which must hold "
               f"client.{USER}'s key")
        raise RadosError(f"rados -p {POOL} {args[0]} on the cluster of {conf} failed: {said} ({fix})")
    return res.stdout


def objects(conf, prefix, timeout):
    return sorted(name for name in run_rados(conf, timeout, "ls").split() if name.startswith(prefix))


def remove(conf, path, timeout, log=None):
    """Removes every object below the store directory `path` from pool POOL; how many it removed."""
    prefix = object_prefix(path)
    names = objects(conf, prefix, timeout)
    for i in range(0, len(names), BATCH):
        run_rados(conf, timeout, "rm", *names[i:i + BATCH])
    left = objects(conf, prefix, timeout)
    if left:
        raise RadosError(f"{len(left)} objects of {path} are still in pool {POOL} after removing them, e.g. {left[0]}")
    if log:
        log.write(f"removed {len(names)} objects of {path} from pool {POOL}\n")
        log.flush()
    return len(names)


class FixedConf:
    """Context manager: /tmp/ceph.conf exists while it is held (the module's comment)."""

    def __enter__(self):
        for _ in range(100):
            try:
                fd = os.open(CONF_PATH, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                os.write(fd, PLACEHOLDER.encode())
            except FileExistsError:
                try:
                    fd = os.open(CONF_PATH, os.O_RDONLY)
                except FileNotFoundError:
                    continue  # the last run using it removed it just now
            fcntl.flock(fd, fcntl.LOCK_SH)
            if self.same_file(fd):
                self.fd = fd
                return self
            os.close(fd)  # removed between our open and our lock: make it again
        raise RadosError(f"{CONF_PATH} kept changing while a run made it: rerun")

    @staticmethod
    def same_file(fd):
        try:
            st = os.stat(CONF_PATH)
        except FileNotFoundError:
            return False
        return (st.st_dev, st.st_ino) == (os.fstat(fd).st_dev, os.fstat(fd).st_ino)

    def __exit__(self, *exc):
        drop_placeholder(self.fd)
        return False


def drop_placeholder(fd):
    """Removes /tmp/ceph.conf, open as `fd`, where it is the placeholder and no run holds it
    any longer; closes `fd`."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # only when no other run holds it
        with open(CONF_PATH) as f:
            ours = f.read() == PLACEHOLDER
        if ours and FixedConf.same_file(fd):
            os.unlink(CONF_PATH)
    except (BlockingIOError, FileNotFoundError):
        pass
    finally:
        os.close(fd)


def exec_held(tool, args):
    """Execs `tool` with this host's /tmp/ceph.conf held (FixedConf): the lock's open file
    goes with it and is let go when the tool ends."""
    held = FixedConf().__enter__()
    os.set_inheritable(held.fd, True)
    os.execv(tool, [tool, *args])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = p.add_subparsers(dest="command", required=True)
    sweep = commands.add_parser("sweep", help="remove every object of the original's runs")
    sweep.add_argument("conf", help="the cluster's ceph.conf")
    sweep.add_argument("prefix", help="rados.prefix of the runs")
    sweep.add_argument("--timeout", type=int, default=300, help="seconds allowed per rados command")
    held = commands.add_parser("exec-held", help=f"run TOOL with {CONF_PATH} held on this host")
    held.add_argument("tool", help="the executable")
    held.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    commands.add_parser("drop-placeholder", help=f"remove this host's {CONF_PATH} placeholder no run holds")
    a = p.parse_args()
    try:
        if a.command == "exec-held":
            exec_held(a.tool, a.args)
        elif a.command == "drop-placeholder":
            try:
                drop_placeholder(os.open(CONF_PATH, os.O_RDONLY))
            except FileNotFoundError:
                pass
        else:
            removed = remove(a.conf, f"/{a.prefix.strip('/')}/{RUNS_FOLDER}", a.timeout)
            print(f"removed {removed} objects of the original's runs below /{a.prefix.strip('/')}/{RUNS_FOLDER} "
                  f"from pool {POOL}")
    except (RadosError, OSError) as e:
        sys.exit(f"original_rados: {e}")


if __name__ == "__main__":
    main()
