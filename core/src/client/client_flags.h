// The benchmark client job's command line (deltameta_client, the seed guide's
// deltafs_bm_cli): its flags with their defaults, the checks across them, the header it
// prints, and which of its two programs runs a command line (the store-backed modes,
// --bk=1 and --fs_use_local=1, run in deltameta_client_store; client_job.h).
#pragma once

#include <cstdint>
#include <string>

#include "deltameta/flags.h"
#include "deltameta/store_options.h"
#include "rpc/transport.h"

namespace deltameta {

struct ClientFlags {
  int64_t n = 1000;
  bool share_dir = true;
  bool random_order = true;
  int64_t write_phases = 1;
  int64_t read_phases = 0;
  bool bk = false;
  std::string db;
  bool fs_use_local = false;
  bool cephfs = false;
  std::string cephfs_dir = "/deltameta";
  std::string cephfs_name;
  bool use_existing_fs = false;
  std::string info_svr_uri = "tcp://127.0.0.1:10086";
  std::string rpc_transport = "auto";
  bool skip_fs_checks = false;
  int64_t rpc_timeout = 30;
  bool verify_total = true;
  bool cpu_affinity = true;
  std::string json;
};

void RegisterClientFlags(FlagSet* set, ClientFlags* flags);

// What is wrong with the flags taken together, or "" if nothing is.
std::string CheckClientFlags(const ClientFlags& flags);

// --rpc_transport (checked) as the fastest transport the client may use.
Transport ClientTransport(const std::string& rpc_transport);

// Prints the job's header (rank 0), as the seed guide's client does.
void PrintClientHeader(const ClientFlags& flags, const StoreOptions& options, int ranks);

// True if the command line asks for a store-backed mode (--bk or --fs_use_local other
// than 0; deltameta_client_store checks the values).
bool WantsStoreModes(int argc, char** argv);

}  // namespace deltameta
