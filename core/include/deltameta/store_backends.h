// The client backends that hold a store (client_backend.h): bulk insertion and the DeltaFS
// local store. Only deltameta_client_store links them, and with them RocksDB.
#pragma once

#include <memory>

#include "deltameta/client_backend.h"
#include "deltameta/store.h"

namespace deltameta {

// Tables go to <table_dir>/p<partition>-NNNNNN.sst; the servers must see that location.
std::unique_ptr<ClientBackend> NewBulkBackend(ServerSet* servers, const StoreOptions& options,
                                              const StorageLocation& table_dir);
// Creates reach the store in batches of about `batch_bytes` (0: one create per write).
std::unique_ptr<ClientBackend> NewLocalBackend(std::unique_ptr<Store> store, size_t batch_bytes);

}  // namespace deltameta
