# The authors' DeltaFS prototype (deltafs-proto v2021.5, the seed guide's version) for Spack:
# built from its public git repository at the pinned commit, exactly as the guide builds it,
# so the artifact can run the paper's own code beside the deltameta core. Only this recipe
# is ours; none of the prototype's files are in this repository.
from spack_repo.builtin.build_systems.cmake import CMakePackage

from spack.package import *


class DeltafsProto(CMakePackage):
    """The authors' DeltaFS prototype, the code the SC'21 paper measured: with +mpi, the
    benchmark tools deltafs_bm_svr (IndexFS-style metadata servers), deltafs_bm_cli
    (clients, and DeltaFS's serverless writes) and parallel_compactor (DeltaFS's compaction
    job); always the static libraries libdeltafs and libdeltafs-common with their headers
    and CMake package files."""

    homepage = "https://github.com/pdlfs/deltafs-proto"
    git = "https://github.com/pdlfs/deltafs-proto.git"

    # BSD-3-Clause, as the prototype's own licence file states.
    license("BSD-3-Clause")

    # The tag v2021.5, which the seed guide checks out. Offline, Spack takes this version
    # from a source mirror instead of git: the archive of the checkout (without .git) at
    # <mirror>/_source-cache/git/pdlfs/deltafs-proto.git/<commit>.tar.gz; an unmodified
    # `git archive --prefix=deltafs-proto-2021.5/ v2021.5` of the tag serves
    # (tests/spack/test_deltafs_proto.py makes such a mirror).
    version("2021.5", tag="v2021.5", commit="2e9984a9a1b2e157abcfefb7483ad68196a1b7f9")

    variant("mpi", default=True, description="Build the MPI benchmark tools (DELTAFS_MPI)")
    variant("snappy", default=True, description="Snappy compression of its tables (PDLFS_SNAPPY)")
    variant("rados", default=False, description="Ceph RADOS storage through librados (PDLFS_RADOS)")
    # The seed guide builds with -DCMAKE_BUILD_TYPE=RelWithDebInfo.
    variant(
        "build_type",
        default="RelWithDebInfo",
        description="CMake build type",
        values=("Debug", "Release", "RelWithDebInfo", "MinSizeRel"),
    )

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    # Its cmake_minimum_required(2.8.12) is refused by CMake 4 (which needs 3.5 or later).
    depends_on("cmake@3.1:3", type="build")

    depends_on("mpi", when="+mpi")
    depends_on("snappy", when="+snappy")
    depends_on("librados", when="+rados")  # external only: our librados package

    def cmake_args(self):
        spec = self.spec
        args = [
            # Its bundled pdlfs-common (external/pdlfs-common), as the guide builds it.
            self.define("DELTAFS_COMMON_INTREE", True),
            self.define_from_variant("DELTAFS_MPI", "mpi"),
            self.define_from_variant("PDLFS_SNAPPY", "snappy"),
            self.define_from_variant("PDLFS_RADOS", "rados"),
        ]
        if spec.satisfies("+mpi"):
            # The guide names the MPI compilers (mpicc.mpich, mpicxx.mpich): here Spack's mpi's.
            args += [
                self.define("MPI_C_COMPILER", spec["mpi"].mpicc),
                self.define("MPI_CXX_COMPILER", spec["mpi"].mpicxx),
            ]
        if spec.satisfies("+rados"):
            # Its FindRADOS.cmake takes an include hint only; the library is given as found,
            # since Debian and Ubuntu keep it in a multiarch lib directory.
            librados = spec["librados"]
            args += [
                self.define("RADOS_INCLUDE_DIR", librados.prefix.include),
                self.define("RADOS_LIBRARY", librados.libs[0]),
            ]
        return args

    @run_after("install")
    def check_tools(self):
        # `make install` installs the three tools only with DELTAFS_MPI=ON.
        if self.spec.satisfies("+mpi"):
            for tool in ("deltafs_bm_svr", "deltafs_bm_cli", "parallel_compactor"):
                if not is_exe(join_path(self.prefix.bin, tool)):
                    raise InstallError(f"{tool} was not installed in {self.prefix.bin}")
