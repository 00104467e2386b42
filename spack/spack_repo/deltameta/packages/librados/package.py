# Ceph's librados for Spack, as an external only: Spack cannot build Ceph.
import os

from spack_repo.builtin.build_systems.generic import Package

from spack.package import *


class Librados(Package):
    """Ceph's RADOS client library (librados) and its C headers.

    External only: Spack cannot build Ceph, so this package has no versions to fetch and
    its install step fails. Install your distribution's package (Debian/Ubuntu:
    ``apt-get install librados-dev``) and declare it in packages.yaml, e.g.::

        librados:
          buildable: false
          externals:
          - spec: librados@16.2.15   # the Ceph release: dpkg-query -W librados-dev
            prefix: /usr

    ``spack external find`` cannot detect it (librados-config reports the library's API
    version, not the Ceph release), so declare it by hand.
    """

    homepage = "https://docs.ceph.com/en/latest/rados/api/librados-intro/"

    @property
    def headers(self):
        return find_headers("librados", self.prefix.include.rados)

    @property
    def libs(self):
        # Distributions install it under lib/<multiarch> (Debian, Ubuntu), lib64 or lib.
        dirs = [self.prefix.lib, self.prefix.lib64]
        dirs += [d for d in find(self.prefix.lib, "*-linux-gnu", recursive=False) if os.path.isdir(d)]
        for d in dirs:
            libs = find_libraries("librados", d, shared=True, recursive=False)
            if libs:
                return libs
        raise NoLibrariesError(f"librados not found under {self.prefix}")

    def install(self, spec, prefix):
        raise InstallError(
            "librados cannot be built by Spack: install your distribution's librados "
            "development package (Debian/Ubuntu: librados-dev) and declare it as an external "
            "with buildable: false (see spack.yaml)"
        )
