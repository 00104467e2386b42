"""Builds Spack's index of its package repositories (builtin and the project's; about 50
CPU-s) once, into DEST, for scripts/test.sh's Spack test groups: each copies it into a cache
of its own (spack_helpers.Spack, $DELTAMETA_SPACK_INDEX_SEED). Spack processes sharing one
cache race as they update it (an open Spack issue, 34085): `spack env create` exited 3 in
two of the three groups on CI's machine.
    python3 tests/spack/index_seed.py DEST"""
import os
import shutil
import sys
import tempfile

from spack_helpers import REPO, Spack


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__.splitlines()[-1].strip())
    os.environ.pop("DELTAMETA_SPACK_INDEX_SEED", None)  # built afresh, not from an earlier one
    with tempfile.TemporaryDirectory(prefix="spack-index-") as root:
        spack = Spack(root)
        spack.env("env", os.path.join(REPO, "spack.yaml"))  # reads, so builds, every index
        shutil.copytree(spack.misc_cache, argv[0])
    print(f"index_seed: Spack's repository indices in {argv[0]}")


if __name__ == "__main__":
    main(sys.argv[1:])
