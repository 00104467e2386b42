// The client backends that hold a store (client_backend.h): bulk insertion and the DeltaFS
// local store, and how the client job sets them up from its flags. Only
// deltameta_client_store links them, and with them RocksDB.
#pragma once

#include <memory>
#include <string>

#include "client/client_backend.h"
#include "client/client_flags.h"
#include "client/workload.h"
#include "deltameta/store.h"

namespace deltameta {

// Tables go to <table_dir>/p<partition>-NNNNNN.sst; the servers must see that location.
std::unique_ptr<ClientBackend> NewBulkBackend(ServerSet* servers, const StoreOptions& options,
                                              const StorageLocation& table_dir);
// Creates reach the store in batches of about `batch_bytes` (0: one create per write).
std::unique_ptr<ClientBackend> NewLocalBackend(std::unique_ptr<Store> store, size_t batch_bytes);

// --fs_use_local=1: a local backend over the rank's own store <db>/r<rank> (RankStore,
// layout.h), origin store work.rank of work.num_ranks: created for the write phase, or
// with --use_existing_fs=1 opened read-only, refused unless written by as many ranks.
// nullptr with *error on failure.
std::unique_ptr<ClientBackend> OpenLocalBackend(const ClientFlags& flags, const Workload& work,
                                                const StoreOptions& options, std::string* error);

// --bk=1: a bulk backend writing its tables under <db>/r<rank>, which it creates.
// nullptr with *error on failure.
std::unique_ptr<ClientBackend> StartBulkBackend(const ClientFlags& flags, const Workload& work, ServerSet* servers,
                                                const StoreOptions& options, std::string* error);

// About the most entries one memtable of the write phase can hold, which its index is
// reserved for (more only cost one copy of the index; --n entries could need more address
// space than the host allows: --n=1e11 was an uncaught std::bad_alloc). RocksDB starts a
// new memtable once one has taken more than memtable_size plus part of an arena block (at
// most an eighth of memtable_size); the write batch that crosses that line
// (write_ahead_log_buffer bytes) still goes in. Every entry takes at least 24 bytes: its
// 8-byte directory id and sequence number in the memtable's arena, and its 8-byte slot in
// the index.
uint64_t MemtableEntries(const StoreOptions& options);

}  // namespace deltameta
