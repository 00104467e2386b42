// The benchmark client job (deltameta_client, the seed guide's deltafs_bm_cli). Each MPI
// rank creates --n files (write phase) and/or lstats them back (read phases) through one
// of three backends: per-op RPC to servers (IndexFS), bulk insertion (--bk=1), or its own
// local store (--fs_use_local=1, DeltaFS). Every lstat is verified; any missing or wrong
// entry is reported and makes the job exit 1.
//
// The job is run by two programs: deltameta_client has the RPC backend only and no
// RocksDB, so an IndexFS client carries no storage engine; for --bk=1 or
// --fs_use_local=1 it becomes deltameta_client_store (RunStoreClient), installed beside
// it, which passes the store-backed modes (store_backends.h). Both take the same flags
// and print and report as deltameta_client.
#pragma once

#include <memory>
#include <string>

#include "client/client_backend.h"
#include "client/client_flags.h"
#include "client/workload.h"
#include "deltameta/store_options.h"
#include "jobs/mpi_session.h"

namespace deltameta {

// The backends that hold a store, which only deltameta_client_store passes (its functions
// are OpenLocalBackend and StartBulkBackend, store_backends.h): referring to them links
// RocksDB in.
struct StoreModes {
  // --fs_use_local=1: the rank's own store.
  std::unique_ptr<ClientBackend> (*open_local)(const ClientFlags& flags, const Workload& work,
                                               const StoreOptions& options, std::string* error);
  // --bk=1: tables the servers ingest at commit.
  std::unique_ptr<ClientBackend> (*start_bulk)(const ClientFlags& flags, const Workload& work, ServerSet* servers,
                                               const StoreOptions& options, std::string* error);
};

// Runs the job with the command line `argc`/`argv`: every rank calls it. `store_modes` is
// null in deltameta_client, which hands those modes to deltameta_client_store
// (RunStoreClient) before it gets here. Returns the job's exit code: 0; 1 if a phase
// failed or verification found errors; 2 for bad flags (0 after --help).
int RunClientJob(const MpiSession& mpi, int argc, char** argv, const StoreModes* store_modes);

// Becomes deltameta_client_store from this program's directory, with the same arguments;
// exits 2 with a one-line error if it cannot be started.
[[noreturn]] void RunStoreClient(char** argv);

}  // namespace deltameta
