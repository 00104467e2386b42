"""Rule build_original: builds the original DeltaFS prototype (deltafs-proto, the authors'
code; licence in original_source.LICENCE) as a dependency, with the seed guide's CMake
flags, from the source config key `original.source` names, its checksum verified first
(original_source.py), and with its RADOS support (PDLFS_RADOS) where librados-dev is
installed: one build serving posix and RADOS stores; or with `original.build: installed`
checks the tools in `original.bin_dir`. The build happens in a scratch folder under results/original/ and
replaces results/original/install only when every tool is there, so a failed build leaves
nothing half-built. Records where the tools are, and what was built from what, in
results/original/tools.json (provenance.json names them).

The image's build (docker/Dockerfile) runs the same build from the command line:
workflows/bin/build_original_tools.py (from_source, write_record)."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

from workflows.launch import original_source as release

TOOLS = ("deltafs_bm_svr", "deltafs_bm_cli", "parallel_compactor")
# The seed guide's build: RelWithDebInfo, gcc and MPICH's compilers, the in-tree common
# library, MPI and Snappy.
GUIDE_FLAGS = ["-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DDELTAFS_COMMON_INTREE=ON", "-DDELTAFS_MPI=ON",
               "-DPDLFS_SNAPPY=ON"]
COMPILERS = {"CMAKE_C_COMPILER": "gcc", "CMAKE_CXX_COMPILER": "g++", "MPI_C_COMPILER": "mpicc.mpich",
             "MPI_CXX_COMPILER": "mpicxx.mpich"}


def original_refusal(implementations, storage, original):
    """Why a configuration listing the original cannot run it here (one line with the fix),
    or None: the deltameta image (DELTAMETA_IMAGE_INFO) built without it, or stores in RADOS
    that its build (config key `original`) cannot reach."""
    if "original" not in implementations:
        return None
    image_info = os.environ.get("DELTAMETA_IMAGE_INFO")
    if image_info:
        with open(image_info) as f:
            if not json.load(f).get("original"):
                return ("implementations: this image holds no original prototype: build it with docker/build-image.sh "
                        "--original PATH/deltafs-proto-2021.5.tar.gz (docker/README.md), or drop original")
    problem = rados_problem(original) if storage == "rados" else None
    if problem:
        return f"implementations: the original cannot keep its stores in RADOS here: {problem}, or use storage: posix"
    return None


def rados_problem(original):
    """What keeps the original's tools of config key `original` from RADOS (with the fix), or None."""
    user = os.environ.get("DELTAMETA_RADOS_ID", "admin")
    if user != "admin":
        return (f"its tools connect as client.admin, fixed in its source, not as DELTAMETA_RADOS_ID {user}: unset it "
                "and give client.admin access to pool test, or drop original")
    if original["build"] == "source" and not librados_installed():
        return ("g++ finds no librados (rados/librados.h, librados.so), so it would be built without PDLFS_RADOS: "
                "install librados-dev (scripts/install-deps.sh), or drop original")
    if original["build"] == "installed" and links_librados(original["bin_dir"]) is False:
        return (f"the tools in original.bin_dir {original['bin_dir']} were built without PDLFS_RADOS (they do not "
                "link librados): give a build with it, e.g. original.build: source with librados-dev installed")
    return None


def fail(message):
    sys.exit(f"build_original: {message}")


def compiler_flags():
    flags = []
    for key, name in COMPILERS.items():
        path = shutil.which(name)
        if not path:
            fail(f"{name} not found: the guide builds the original with gcc and MPICH's compilers "
                 "(run scripts/install-deps.sh)")
        flags.append(f"-D{key}={path}")
    return flags


def librados_installed():
    """Whether librados' header and library are where the compiler finds them (librados-dev)."""
    header = subprocess.run(["g++", "-E", "-x", "c++", "-"], input="#include <rados/librados.h>\n", text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    library = subprocess.run(["g++", "-print-file-name=librados.so"], capture_output=True, text=True).stdout.strip()
    return header and os.path.isabs(library)


def links_librados(bin_dir):
    """Whether every tool in `bin_dir` links librados (built with PDLFS_RADOS); None if one is missing."""
    if missing_tools(bin_dir):
        return None
    needs = [subprocess.run(["readelf", "-d", os.path.join(bin_dir, t)], capture_output=True, text=True).stdout
             for t in TOOLS]
    return all("[librados.so" in n for n in needs)


def missing_tools(bin_dir):
    return [t for t in TOOLS if not os.access(os.path.join(bin_dir, t), os.X_OK)]


def build(top, staging, threads, log):
    """Configures, builds and installs the tree `top` into `staging`/install; its bin folder."""
    build_dir, prefix = os.path.join(staging, "build"), os.path.join(staging, "install")
    steps = [["cmake", f"-DCMAKE_INSTALL_PREFIX={prefix}", *compiler_flags(), *GUIDE_FLAGS,
              *(["-DPDLFS_RADOS=ON"] if librados_installed() else []), "-S", top, "-B", build_dir],
             ["cmake", "--build", build_dir, "-j", str(threads)],
             ["cmake", "--install", build_dir]]
    for cmd in steps:
        log.write("$ " + " ".join(cmd) + "\n")
        log.flush()
        if subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode != 0:
            fail(f"`{' '.join(cmd[:2])} ...` failed building deltafs-proto {release.VERSION} (see {log.name})")
    return os.path.join(prefix, "bin"), steps[0]


def from_source(source, sha256, repo, threads, out_dir, log):
    """Builds `source` (original.source) into `out_dir`/install; the tools' record."""
    source = release.resolve(source, repo)
    os.makedirs(out_dir, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".staging-", dir=out_dir)
    try:
        log.write(f"deltafs-proto {release.VERSION} from {source}; licence {release.LICENCE}\n")
        top, digest = release.checked_tree(source, sha256, staging)
        bin_dir, configure = build(top, staging, threads, log)
        if missing_tools(bin_dir):
            fail(f"the build installed no {', '.join(missing_tools(bin_dir))} (see {log.name})")
        installed = os.path.join(out_dir, "install")
        shutil.rmtree(installed, ignore_errors=True)
        os.replace(os.path.join(staging, "install"), installed)
    except release.SourceError as e:
        fail(str(e))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    archive_sha256 = None
    if os.path.isfile(source):
        with open(source, "rb") as f:
            archive_sha256 = hashlib.file_digest(f, "sha256").hexdigest()
    return {"bin_dir": os.path.join(installed, "bin"), "source": source, "sha256": digest,
            "archive_sha256": archive_sha256, "commit": release.COMMIT, "cmake": configure[2:-4],
            "rados": "-DPDLFS_RADOS=ON" in configure}


def write_record(record, mode, path):
    with open(path, "w") as f:
        json.dump(dict(record, name="deltafs-proto", version=release.VERSION, licence=release.LICENCE,
                       tools=list(TOOLS), build=mode), f, indent=1)
        f.write("\n")


def main(sm):
    p = sm.params
    with open(sm.log[0], "w") as log:
        if p.mode == "source":
            record = from_source(p.source, p.sha256, p.repo, sm.threads,
                                 os.path.dirname(os.path.abspath(sm.output.tools)), log)
        else:
            bin_dir = os.path.abspath(p.bin_dir)
            if missing_tools(bin_dir):
                fail(f"{', '.join(missing_tools(bin_dir))} not found in original.bin_dir {bin_dir}: give the folder "
                     f"holding the original's built tools (its install/bin), or original.build: source")
            record = installed(bin_dir)
    write_record(record, p.mode, sm.output.tools)


def installed(bin_dir):
    """The record of the tools in `bin_dir`: with the commit and checksums of their build when
    cli() built them (its tools.json, two folders up: the image's), else without."""
    record = {"bin_dir": bin_dir, "source": "installed", "sha256": None, "archive_sha256": None, "commit": None,
              "cmake": None, "rados": links_librados(bin_dir)}
    built = os.path.join(bin_dir, "..", "..", "tools.json")
    if os.path.isfile(built):
        with open(built) as f:
            build = json.load(f)
        record.update({k: build[k] for k in ("sha256", "archive_sha256", "commit", "cmake")})
    return record
