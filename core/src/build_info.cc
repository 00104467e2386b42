// Binary provenance: see build_info.h.
#include "deltameta/build_info.h"

#include <asio/version.hpp>
#include <mpi.h>
#include <rocksdb/version.h>
#include <snappy-stubs-public.h>

#include "build_config.h"

namespace deltameta {

nlohmann::json BuildInfoJson() {
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  MPI_Get_library_version(mpi, &len);
  std::string mpi_version(mpi, static_cast<size_t>(len));
  mpi_version = mpi_version.substr(0, mpi_version.find('\n'));
  return {
      {"version", DELTAMETA_VERSION},
      {"git_revision", DELTAMETA_GIT_REVISION},
      {"build_type", DELTAMETA_BUILD_TYPE},
      {"compiler", DELTAMETA_COMPILER},
      {"rocksdb", std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) + "." +
                      std::to_string(ROCKSDB_PATCH)},
      {"snappy", std::to_string(SNAPPY_MAJOR) + "." + std::to_string(SNAPPY_MINOR) + "." +
                     std::to_string(SNAPPY_PATCHLEVEL)},
      {"mpi", mpi_version},
      {"asio", std::to_string(ASIO_VERSION / 100000) + "." + std::to_string(ASIO_VERSION / 100 % 1000) + "." +
                   std::to_string(ASIO_VERSION % 100)},
  };
}

}  // namespace deltameta
