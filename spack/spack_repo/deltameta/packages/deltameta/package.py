# The deltameta core for Spack: a thin map of variants onto the core's CMake options.
import os

from spack_repo.builtin.build_systems.cmake import CMakePackage

from spack.package import *

# This package repository lives in the project's own git repository, at
# <project>/spack/spack_repo/deltameta/packages/deltameta, which is therefore where the
# sources come from: offline, from the clone that holds this file.
_HERE = os.path.dirname(os.path.realpath(__file__))
_PROJECT = os.path.abspath(os.path.join(_HERE, *[os.pardir] * 5))


class Deltameta(CMakePackage):
    """File-system metadata designs (IndexFS, IndexFS with bulk insertion, DeltaFS) over
    RocksDB: a C++ library and the MPI tools deltameta_server, deltameta_client (with
    deltameta_client_store for its store-backed modes), deltameta_compactor and (from 0.4.0)
    deltameta_mdworkbench, that reproduce the SC'21 DeltaFS paper's comparison."""

    homepage = f"file://{_PROJECT}/README.md"
    git = f"file://{_PROJECT}"

    # Each release is the core's CMake project version at its commit; main follows the branch.
    version("0.5.0", commit="9791e9290192d6d993ad24d64c5e6bcb1c9492d8")
    version("0.4.0", commit="c78a3365bcf299babdb300e3ba9a3dcd38885fff")
    version("0.3.0", commit="3f8b9d3253716752f1c92286b713f6cacf0b64ce")
    version("0.2.0", commit="3f84012961f1cb17b30f32a0cc12f4bc3ab2283e")
    version("0.1.0", commit="dbf7280445a649ab64305d613905a9911e281cf7")
    version("main", branch="main")

    variant("mpi", default=True, description="Build the MPI tools (off: the library only)")
    variant("snappy", default=True, description="Snappy store compression")
    variant("rados", default=False, description="Stores and tables on Ceph RADOS (librados)")

    root_cmakelists_dir = "core"

    depends_on("cxx", type="build")
    depends_on("cmake@3.18:", type="build")

    depends_on("rocksdb@7:")
    depends_on("rocksdb+snappy", when="+snappy")
    depends_on("snappy", when="+snappy")
    depends_on("mpi", when="+mpi")
    depends_on("librados", when="+rados")
    depends_on("nlohmann-json@3:")
    depends_on("asio")  # header-only, used standalone

    # spack install --test=root: the unit and MPI tests, and with +mpi +snappy the
    # integration tests (the real tools under mpiexec on loopback, driven by Python), as
    # check() selects them. With +rados, ctest also starts a throw-away Ceph cluster
    # (scripts/ceph-cluster.sh), which needs the host's ceph-mon and ceph-osd.
    depends_on("googletest", type="test")
    depends_on("python@3:", type="test", when="+mpi+snappy")

    # What an install's tests leave out: what tests the project's code rather than this
    # build of it, and runs on every commit of the project's own CI (scripts/test.sh): the
    # wire fuzzer (a clang build of its own), the fault injection (full disks, crashes) and
    # the instruction budgets (valgrind; their bounds are set for the project's compiler).
    install_tests_left_out = r"^(fuzz\.|faults\.)|^integration\.test_instruction_budget$"

    def setup_build_environment(self, env):
        # The tests' MPI jobs all run on this host: UCX on loopback alone, as the core chooses
        # for jobs on one host (core/doc/transports.md), so that a network device removed
        # while a job starts (a Docker network going away) cannot fail its MPI_Init.
        if self.run_tests:
            env.set("UCX_NET_DEVICES", "lo")

    def check(self):
        with working_dir(self.build_directory):
            ctest("--output-on-failure", "--parallel", str(make_jobs), "--exclude-regex", self.install_tests_left_out)

    def cmake_args(self):
        return [
            self.define_from_variant("DELTAMETA_WITH_MPI", "mpi"),
            self.define_from_variant("DELTAMETA_WITH_SNAPPY", "snappy"),
            self.define_from_variant("DELTAMETA_WITH_RADOS", "rados"),
            self.define("DELTAMETA_TESTS", self.run_tests),
        ]
