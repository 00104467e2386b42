// Binary provenance: see build_info.h. The MPI library's version is the jobs'
// (JobBuildInfoJson in job_report.h); Snappy's is reported only when built with it.
#include "util/build_info.h"

#include <asio/version.hpp>
#include <nlohmann/json.hpp>
#include <rocksdb/version.h>
#ifdef DELTAMETA_WITH_SNAPPY
#include <snappy-stubs-public.h>
#endif

#include "build_config.h"

namespace deltameta {

nlohmann::json BuildInfoJson() {
  return {
      {"version", DELTAMETA_VERSION},
      {"git_revision", DELTAMETA_GIT_REVISION},
      {"build_type", DELTAMETA_BUILD_TYPE},
      {"compiler", DELTAMETA_COMPILER},
      {"rocksdb",
       std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) + "." + std::to_string(ROCKSDB_PATCH)},
#ifdef DELTAMETA_WITH_SNAPPY
      {"snappy",
       std::to_string(SNAPPY_MAJOR) + "." + std::to_string(SNAPPY_MINOR) + "." + std::to_string(SNAPPY_PATCHLEVEL)},
#else
      {"snappy", nullptr},
#endif
      {"asio", std::to_string(ASIO_VERSION / 100000) + "." + std::to_string(ASIO_VERSION / 100 % 1000) + "." +
                   std::to_string(ASIO_VERSION % 100)},
  };
}

std::string BuildLine() {
  std::string with;
#ifdef DELTAMETA_WITH_SNAPPY
  with += " snappy";
#endif
#ifdef DELTAMETA_WITH_RADOS
  with += " rados";
#endif
#ifdef DELTAMETA_WITH_CEPHFS
  with += " cephfs";
#endif
  return std::string("Build: deltameta ") + DELTAMETA_VERSION + " (" + DELTAMETA_GIT_REVISION +
         "), with:" + (with.empty() ? " none" : with);
}

}  // namespace deltameta
