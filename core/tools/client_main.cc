// deltameta_client: the benchmark client job (the seed guide's deltafs_bm_cli; the job is
// jobs/client_job.h). Each MPI rank creates --n files and/or lstats them back, through
// RPC to servers, bulk insertion (--bk=1) or its own local store (--fs_use_local=1).
//
// Built twice: deltameta_client has the RPC backend only and no RocksDB; for --bk=1 or
// --fs_use_local=1 it becomes deltameta_client_store (DELTAMETA_CLIENT_STORE_MODES),
// installed beside it, before MPI starts. Both take the same flags and print and report
// as deltameta_client.
#include "jobs/client_job.h"
#include "jobs/mpi_session.h"
#include "util/malloc_policy.h"
#ifdef DELTAMETA_CLIENT_STORE_MODES
#include "client/store_backends.h"
#endif

namespace dm = deltameta;

int main(int argc, char** argv) {
#ifdef DELTAMETA_CLIENT_STORE_MODES
  const dm::StoreModes store_modes{dm::OpenLocalBackend, dm::StartBulkBackend};
  const dm::StoreModes* modes = &store_modes;
#else
  if (dm::WantsStoreModes(argc, argv)) dm::RunStoreClient(argv);
  const dm::StoreModes* modes = nullptr;
#endif
  dm::KeepLargeAllocationsMapped();
  dm::MpiSession mpi(&argc, &argv);
  return mpi.Finish(dm::RunClientJob(mpi, argc, argv, modes));
}
