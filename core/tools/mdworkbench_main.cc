// deltameta_mdworkbench: MD-Workbench's metadata and small-object pattern as an MPI job
// (the job is mdworkbench/mdw_job.h): per rank, data sets of objects precreated, then
// iterations of stat, read, delete and create on another rank's objects, then cleanup,
// through a posix directory tree, the IndexFS servers, DeltaFS or CephFS.
#include "jobs/mpi_session.h"
#include "mdworkbench/mdw_job.h"
#include "util/malloc_policy.h"

namespace dm = deltameta;

int main(int argc, char** argv) {
  dm::KeepLargeAllocationsMapped();
  dm::MpiSession mpi(&argc, &argv);
  return mpi.Finish(dm::RunMdwJob(mpi, argc, argv));
}
