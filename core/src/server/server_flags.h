// The metadata server job's command line (deltameta_server, the seed guide's
// deltafs_bm_svr): its flags with their defaults, their check, what they set in the store
// settings, the header it prints, and the ready file it publishes once every rank listens.
#pragma once

#include <cstdint>
#include <string>

#include "deltameta/flags.h"
#include "deltameta/store_options.h"
#include "format/wire.h"

namespace deltameta {

struct ServerFlags {
  std::string db;
  bool use_existing_fs = false;
  bool skip_fs_checks = false;
  int64_t ports_per_rank = 1;
  int64_t rpc_threads = 2;
  std::string rpc_ip = "127.0.0.1";
  int64_t info_port = 10086;
  std::string ready_file;
  bool cpu_affinity = true;
  int64_t frame_timeout = 10;
  int64_t idle_timeout = 1800;
  int64_t conn_buffer_mb = 64;
  int64_t wal_flush_ms = 100;
  bool wal_sync = false;
  int64_t inline_data_max = kMaxInlineDataBytes;
};

void RegisterServerFlags(FlagSet* set, ServerFlags* flags);

// What is wrong with the flags taken together, or "" if nothing is.
std::string CheckServerFlags(const ServerFlags& flags);

// Sets what the flags decide in the store settings: a read-only server (--use_existing_fs)
// writes no log; a writing one checks creates unless --skip_fs_checks, flushes its log
// every --wal_flush_ms (or syncs each create, --wal_sync) and keeps space for its close.
void ApplyServerFlags(const ServerFlags& flags, StoreOptions* options);

// Prints the job's header (rank 0), as the seed guide's server does.
void PrintServerHeader(const ServerFlags& flags, const StoreOptions& options, int ranks);

// Atomically publishes `text` at `path` (--ready_file): written under a temporary name
// beside it, then renamed. False with *error naming the file on failure.
bool WriteReadyFile(const std::string& path, const std::string& text, std::string* error);

}  // namespace deltameta
