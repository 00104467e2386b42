// deltameta_server: the metadata server job (the seed guide's deltafs_bm_svr; the job is
// jobs/server_job.h). Each MPI rank serves one partition from its own store <db>/r<rank>;
// rank 0 also answers the info endpoint. Runs until SIGINT or SIGTERM.
#include "jobs/mpi_session.h"
#include "jobs/server_job.h"
#include "util/malloc_policy.h"

namespace dm = deltameta;

int main(int argc, char** argv) {
  dm::KeepLargeAllocationsMapped();
  dm::MpiSession mpi(&argc, &argv);
  return mpi.Finish(dm::RunServerJob(mpi, argc, argv));
}
