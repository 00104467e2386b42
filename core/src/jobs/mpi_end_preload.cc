// libdeltameta_mpi_end.so: a preload library (LD_PRELOAD) that ends an MPI program's ranks as
// MpiSession::Finish ends ours across hosts (mpi_session.h), for programs that are not ours:
// the original prototype's tools, whose MPI_Finalize hangs over UCX's TCP transport across
// hosts after their results are printed (core/doc/transports.md). Its MPI_Finalize waits
// quietly until every rank got there, flushes the program's output and tells the process
// manager this rank is done (PMI-1 finalize); when the program then exits, with its own
// status, it leaves at once (_exit), before anything could disconnect UCX. A program that
// the process manager did not start over PMI_FD finalizes MPI as usual.
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>

#include <mpi.h>

#include "jobs/pmi_finalize.h"
#include "jobs/quiet_wait.h"

namespace {

void LeaveNow(int status, void*) {
  std::fflush(nullptr);
  _exit(status);
}

}  // namespace

extern "C" int MPI_Finalize() {
  const char* pmi_fd = std::getenv("PMI_FD");
  if (!pmi_fd) return PMPI_Finalize();
  deltameta::QuietBarrier(MPI_COMM_WORLD);
  std::fflush(nullptr);
  if (!deltameta::PmiFinalize(std::atoi(pmi_fd))) {
    std::fprintf(stderr,
                 "libdeltameta_mpi_end: the process manager did not acknowledge the end of this rank "
                 "(PMI finalize on PMI_FD=%s)\n",
                 pmi_fd);
    _exit(1);
  }
  on_exit(LeaveNow, nullptr);
  return MPI_SUCCESS;
}
