"""The authors' DeltaFS prototype as a Spack package (spack/spack_repo/deltameta/packages/
deltafs_proto): `deltafs-proto@2021.5 +mpi +snappy` installs offline, from a source mirror
made of the shared release archive, and its three tools run the seed guide's run 1 and
run 3's write and compaction at 2 ranks x 500 files.

The archive is $DELTAMETA_UPSTREAM/deltafs-proto-2021.5.tar.gz (default: ../shared/upstream
beside the clone), checked against the sha256 and commit of the README.md beside it; without
it these tests are skipped with that reason, and without Spack as test_spack_env.py is
(spack_helpers). The prototype's files stay in the test's scratch space: the last test
checks that none of them is in the repository.

How Spack 1.0.2 takes a git-commit version from a mirror (lib/spack/spack/mirrors/layout.py
and stage.py): it looks for the archive of the checkout, without .git, at
<mirror>/_source-cache/git/<path of the git URL>/<commit>.tar.gz, before it tries git, and
expands it like any tarball (a single top folder becomes the source tree). It cannot verify
such an archive (no checksum exists for a git version; it warns "Using a mirror instead of
version control"), so the test verifies the archive's sha256 itself. `spack mirror create`
would make the same entry, but only by cloning the repository, which offline it cannot; an
unmodified `git archive` of the tag is that checkout's tree, so it is placed there by hand.
The package keeps its `commit=` version rather than a `url` + `sha256` one: it is the guide's
source (a clone of the tag) and the commit is the pin; a GitHub tarball's sha256 would be a
second pin that nothing here can check offline."""
import hashlib
import os
import re
import shutil
import signal
import subprocess
import tarfile
import time

import pytest
import yaml
from guide import free_port

from spack_helpers import REPO, UPSTREAM, installed_prefix, run, stop

ARCHIVE = "deltafs-proto-2021.5.tar.gz"
PACKAGE = os.path.join(REPO, "spack", "spack_repo", "deltameta", "packages", "deltafs_proto", "package.py")
TOOLS = ["deltafs_bm_svr", "deltafs_bm_cli", "parallel_compactor"]
RANKS, N = 2, 500

# The seed guide's settings (its runs 1 and 3), as -env flags of mpiexec.
SERVER_ENV = {"DELTAFS_Db_write_ahead_log_buffer": 65536, "DELTAFS_Db_disable_write_ahead_logging": 0,
              "DELTAFS_Db_disable_compaction": 0, "DELTAFS_Db_l0_soft_limit": 8, "DELTAFS_Db_l0_hard_limit": 12,
              "DELTAFS_Db_compression": 1}
WRITE_ENV = {"DELTAFS_Db_write_ahead_log_buffer": 65536, "DELTAFS_Db_disable_write_ahead_logging": 0,
             "DELTAFS_Db_disable_compaction": 1, "DELTAFS_Db_compression": 1}
COMPACTOR_ENV = {"DELTAFS_Db_disable_write_ahead_logging": 1, "DELTAFS_Db_compression": 1}
RESULT = re.compile(r"^==(\w+)\s*:.*?(\d+) ops$", re.M)


def package_commit():
    with open(PACKAGE) as f:
        m = re.search(r'version\("2021\.5",.*commit="([0-9a-f]{40})"', f.read())
    assert m, f"{PACKAGE} pins no commit for 2021.5"
    return m.group(1)


def checked_archive():
    """The shared archive, after checking it against its README's sha256 and the commit the
    package pins; skips the test where it is missing."""
    path = os.path.join(UPSTREAM, ARCHIVE)
    if not os.path.isfile(path):
        pytest.skip(f"{UPSTREAM} lacks {ARCHIVE} (DELTAMETA_UPSTREAM names another folder)")
    with open(os.path.join(UPSTREAM, "README.md")) as f:
        row = next((line for line in f if line.startswith(f"| `{ARCHIVE}`")), None)
    assert row, f"{UPSTREAM}/README.md has no row for {ARCHIVE}"
    commit, sha256 = re.search(r"`([0-9a-f]{40})`", row).group(1), re.search(r"`([0-9a-f]{64})`", row).group(1)
    with open(path, "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == sha256, f"{path} does not match its README's sha256"
    assert commit == package_commit(), f"{UPSTREAM}/README.md's commit is not the package's pin"
    return path, commit


@pytest.fixture(scope="module")
def proto_env(request, tmp_path_factory):
    """`deltafs-proto@2021.5 +mpi +snappy` installed in an environment with spack.yaml's
    externals and a source mirror holding the shared archive: {spack, env, prefix, bin,
    mpiexec}."""
    archive, commit = checked_archive()  # before Spack's set-up: skip early without the archive
    spack = request.getfixturevalue("spack")
    root = tmp_path_factory.mktemp("deltafs-proto")
    mirror = root / "mirror"
    entry = mirror / "_source-cache" / "git" / "pdlfs" / "deltafs-proto.git" / f"{commit}.tar.gz"
    entry.parent.mkdir(parents=True)
    shutil.copyfile(archive, entry)
    with open(os.path.join(REPO, "spack.yaml")) as f:
        manifest = yaml.safe_load(f)
    env = manifest["spack"]
    env["specs"] = ["deltafs-proto@2021.5 +mpi +snappy ~rados"]
    env["repos"]["deltameta"] = os.path.join(REPO, "spack", "spack_repo", "deltameta")
    env["mirrors"] = {"deltafs-proto-archive": {"url": f"file://{mirror}", "binary": False}}
    with open(root / "spack.yaml", "w") as f:
        yaml.safe_dump(manifest, f)
    path = spack.env("env-deltafs-proto", str(root / "spack.yaml"))
    spack("-e", path, "concretize")
    out = spack("-e", path, "install")
    assert "Using a mirror instead of version control" in out, out[-4000:]  # not a git clone
    prefix = installed_prefix(spack, path, "deltafs-proto")
    # The launcher of the environment's MPI (mpich's mpiexec), as the guide uses mpich's.
    launcher = os.path.join(installed_prefix(spack, path, "mpich"), "bin", "mpiexec")
    return {"spack": spack, "env": path, "prefix": prefix, "bin": os.path.join(prefix, "bin"), "mpiexec": launcher}


def mpi_command(launcher, env, tool, **flags):
    """RANKS ranks of `tool` on this host, on UCX's loopback device as the workflow's jobs on one
    host are (mpijobs.Launcher: a network device removed while UCX starts fails MPI_Init)."""
    cmd = [launcher, "-n", str(RANKS)]
    for k, v in {"UCX_NET_DEVICES": "lo", **env}.items():
        cmd += ["-env", k, str(v)]
    return cmd + [tool] + [f"--{k}={v}" for k, v in flags.items()]


def results(out):
    """{phase: ops} of the tools' '==phase : ... N ops' lines."""
    return {m.group(1): int(m.group(2)) for m in RESULT.finditer(out)}


def test_installs_the_three_tools_from_the_mirror(proto_env):
    spack, env, prefix = proto_env["spack"], proto_env["env"], proto_env["prefix"]
    for tool in TOOLS:
        assert os.access(os.path.join(prefix, "bin", tool), os.X_OK), f"{tool} missing in {prefix}/bin"
    with open(os.path.join(prefix, ".spack", "spack-configure-args.txt")) as f:
        args = f.read()
    for define in ("DELTAFS_COMMON_INTREE:BOOL=ON", "DELTAFS_MPI:BOOL=ON", "PDLFS_SNAPPY:BOOL=ON",
                   "PDLFS_RADOS:BOOL=OFF"):
        assert f"-D{define}" in args, args
    out = spack("-e", env, "find", "-v", "deltafs-proto", timeout=300)
    assert "build_type=RelWithDebInfo" in out and f"commit={package_commit()}" in out, out


def test_guide_run3_write_and_compaction(proto_env, tmp_path):
    """Run 3's DeltaFS write phase (deltafs_bm_cli, no servers) and its parallel compaction."""
    bin_dir, launcher = proto_env["bin"], proto_env["mpiexec"]
    (tmp_path / "run3").mkdir()  # the guide's mkdir -p /tmp/deltafs/run3: the tools make only the store's own folder
    origin, compacted = tmp_path / "run3" / "origin", tmp_path / "run3" / "compact"
    out = run(mpi_command(launcher, WRITE_ENV, os.path.join(bin_dir, "deltafs_bm_cli"), db=origin, share_dir=1,
                          n=N, read_phases=0, skip_fs_checks=1, fs_use_local=1), 120, cwd=str(tmp_path))
    assert results(out).get("insert") == RANKS * N, out[-2000:]
    out = run(mpi_command(launcher, COMPACTOR_ENV, os.path.join(bin_dir, "parallel_compactor"), src_dir=origin,
                          dst_dir=compacted, rpc_async_sender_threads=16, rpc_worker_threads=0, rpc_batch_min=4,
                          rpc_batch_max=8, rpc_threads=2), 120, cwd=str(tmp_path))
    assert results(out).get("mapreduce", 0) >= RANKS * N and "Bye" in out, out[-2000:]


def test_guide_run1_servers_and_clients(proto_env, tmp_path):
    """Run 1 (IndexFS): 2 deltafs_bm_svr ranks on a free info port below the kernel's
    ephemeral range (guide.free_port: not the guide's 10086, which another test may hold, nor
    one the kernel may give any other test's server meanwhile), 2 deltafs_bm_cli ranks
    inserting and stating 500 files each."""
    bin_dir, launcher, port = proto_env["bin"], proto_env["mpiexec"], free_port()
    log = tmp_path / "svr.out"
    (tmp_path / "run1").mkdir()  # the guide's mkdir -p /tmp/deltafs/run1
    with open(log, "w") as f:
        svr = subprocess.Popen(mpi_command(launcher, SERVER_ENV, os.path.join(bin_dir, "deltafs_bm_svr"),
                                           db=tmp_path / "run1" / "svr", skip_fs_checks=0, ports_per_rank=1,
                                           rpc_threads=2, info_port=port),
                               cwd=str(tmp_path), stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while "Running..." not in log.read_text():
            assert svr.poll() is None and time.monotonic() < deadline, f"servers not running:\n{log.read_text()}"
            time.sleep(0.2)
        out = run(mpi_command(launcher, {}, os.path.join(bin_dir, "deltafs_bm_cli"), share_dir=1, n=N,
                              read_phases=1, info_svr_uri=f"tcp://127.0.0.1:{port}", skip_fs_checks=0),
                  120, cwd=str(tmp_path))
        got = results(out)
        assert got.get("insert") == RANKS * N and got.get("fstats") == RANKS * N, out[-2000:]
        os.killpg(svr.pid, signal.SIGINT)  # the guide's ^C; mpiexec passes it on to the ranks
        assert svr.wait(60) == 0, log.read_text()[-2000:]
    finally:
        if svr.poll() is None:
            stop(svr)


def test_no_file_of_the_prototype_is_in_the_repository():
    """Only the recipe is ours: no tracked file has the content of a (non-empty) file of the
    archive."""
    archive, _ = checked_archive()
    theirs = set()
    with tarfile.open(archive) as tar:
        for member in tar:
            data = tar.extractfile(member).read() if member.isfile() else b""
            if data:  # an empty file proves nothing
                theirs.add(hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest())  # git's blob id
    tracked = run(["git", "ls-files", "-s"], 60, cwd=REPO).split("\n")
    ours = {line.split()[1]: line.split("\t", 1)[1] for line in tracked if line}
    assert not [path for blob, path in ours.items() if blob in theirs]
