// MPI job lifetime: see mpi_session.h.
#include "jobs/mpi_session.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "jobs/mpi_util.h"
#include "jobs/pmi_finalize.h"

namespace deltameta {
namespace {

constexpr int kHostNameBytes = 256;
std::vector<std::string> rank_hosts;  // on rank 0: every rank's host name, in rank order

void GatherRankHosts(int rank, int size) {
  char mine[kHostNameBytes] = {0};
  gethostname(mine, kHostNameBytes - 1);
  std::vector<char> all(rank == 0 ? static_cast<size_t>(kHostNameBytes) * size : 0);
  MPI_Request r;
  MPI_Igather(mine, kHostNameBytes, MPI_CHAR, all.data(), kHostNameBytes, MPI_CHAR, 0, MPI_COMM_WORLD, &r);
  QuietWait(&r);
  for (size_t i = 0; i + kHostNameBytes <= all.size(); i += kHostNameBytes) rank_hosts.emplace_back(&all[i]);
}

bool SameValue(const char* a, const char* b) { return a && b && std::strcmp(a, b) == 0; }

// Whether the launcher's environment says every rank of this job is on this host.
bool RanksShareOneHost() {
  return SameValue(std::getenv("MPI_LOCALNRANKS"), std::getenv("PMI_SIZE")) ||
         SameValue(std::getenv("SLURM_STEP_NUM_NODES"), "1");
}

}  // namespace

nlohmann::json PlacementJson() {
  std::vector<std::string> distinct = rank_hosts;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  const char* tls = std::getenv("UCX_TLS");
  const char* devices = std::getenv("UCX_NET_DEVICES");
  return {{"rank_hosts", rank_hosts},
          {"hosts", distinct.size()},
          {"ucx_tls", tls ? tls : "default"},
          {"ucx_net_devices", devices ? devices : "default"}};
}

MpiSession::MpiSession(int* argc, char*** argv) {
  if (RanksShareOneHost()) {  // the user's own choices stay (the top of mpi_session.h)
    setenv("UCX_TLS", "self,sm", 0);
    setenv("UCX_NET_DEVICES", "lo", 0);
  }
  const char* tls = std::getenv("UCX_TLS");
  shared_memory_only_ = tls && (std::strcmp(tls, "self,sm") == 0 || std::strcmp(tls, "sm,self") == 0);
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  GatherRankHosts(rank_, size_);
}

MpiSession::~MpiSession() {
  if (!finished_) Finish(0);
}

int MpiSession::Finish(int exit_code) {
  finished_ = true;
  QuietBarrier(MPI_COMM_WORLD);
  const char* pmi_fd = std::getenv("PMI_FD");
  if (shared_memory_only_ || size_ == 1 || !pmi_fd) {
    MPI_Finalize();
    return exit_code;
  }
  std::cout.flush();
  std::fflush(nullptr);
  if (!PmiFinalize(std::atoi(pmi_fd))) {
    PrintError("mpi", "the process manager did not acknowledge the end of this rank (PMI finalize on PMI_FD=" +
                          std::string(pmi_fd) + "); the job's results were written before");
    _exit(exit_code != 0 ? exit_code : 1);
  }
  _exit(exit_code);
}

}  // namespace deltameta
