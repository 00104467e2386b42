// deltameta_compactor: the DeltaFS parallel compaction job (the seed guide's
// parallel_compactor; the job is jobs/compactor_job.h). Each MPI rank reads its share of
// the write phase's origin stores <src_dir>/r<j>, shuffles every entry to the rank owning
// its partition and writes that partition, sorted, into <dst_dir>/r<rank>.
#include "jobs/compactor_job.h"
#include "jobs/mpi_session.h"
#include "util/malloc_policy.h"

namespace dm = deltameta;

int main(int argc, char** argv) {
  dm::KeepLargeAllocationsMapped();
  dm::MpiSession mpi(&argc, &argv);
  return mpi.Finish(dm::RunCompactorJob(mpi, argc, argv));
}
