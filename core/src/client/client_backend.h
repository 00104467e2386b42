// How the benchmark client reaches the namespace. Three backends, one per design:
//   RpcBackend   - every create and lstat is one RPC to the name's owner (IndexFS)
//   BulkBackend  - creates are sorted in memory per owner and written as tables, which the
//                  owners ingest at commit (IndexFS with bulk insertion); lstats are RPCs
//   LocalBackend - the rank's own store, no servers (DeltaFS write phase); creates are
//                  batched like a buffered write-ahead log
//   CephfsBackend - CephFS through libcephfs, the production baseline (cephfs_backend.h)
// This header has the interface, the server set and the RPC backend, which need no
// store; the store-backed two are in store_backends.h. A backend is used by one thread.
// A false return means the transport or store failed (*error says how); the job cannot
// go on.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/wire.h"
#include "rpc/rpc_client.h"

namespace deltameta {

class ClientBackend {
 public:
  virtual ~ClientBackend() = default;
  virtual bool Create(uint64_t dir_id, std::string_view name, const FileStat& stat, OpStatus* status,
                      std::string* error) = 0;
  virtual bool Lstat(uint64_t dir_id, std::string_view name, FileStat* stat, OpStatus* status, std::string* error) = 0;
  // Makes the phase's creates durable and visible (part of the timed write phase).
  virtual bool Commit(std::string* error) = 0;
  // Entries this rank counts for --verify_total where there are no servers: its own store
  // (LocalBackend), or the directory it counts (CephfsBackend); 0 for the others. False
  // with *error if they could not be counted.
  virtual bool LocalEntries(uint64_t* entries, std::string*) {
    *entries = 0;
    return true;
  }
  // True if the file system picks inode numbers (CephFS): an lstat's ino is then checked
  // to be set, not to be the workload's.
  virtual bool AssignsInodes() const { return false; }
};

// Connections to every server of a job, found through its info endpoint.
class ServerSet {
 public:
  // Asks the info endpoint for the server list and connects to partition p's port
  // (client_rank % ports_per_rank) of each rank. nullptr with *error on failure.
  // Servers in the same network namespace are reached over the fastest transport that
  // `fastest` allows (transport.h).
  static std::unique_ptr<ServerSet> Connect(const std::string& info_uri, int client_rank,
                                            std::chrono::milliseconds timeout, Transport fastest, std::string* error);
  uint32_t size() const { return static_cast<uint32_t>(servers_.size()); }
  // The transport of every connection ("shm", "unix" or "tcp"), or "mixed".
  std::string transport() const;
  // The "host:port" each partition's server was reached at, in partition order.
  std::vector<std::string> addresses() const;
  RpcClient* server(uint32_t partition) { return servers_[partition].get(); }
  // Sum over servers of their CPU seconds so far; and, with count_entries, of their entries.
  bool QueryStats(bool count_entries, double* cpu_s, uint64_t* entries, std::string* error);

 private:
  std::vector<std::unique_ptr<RpcClient>> servers_;
};

std::unique_ptr<ClientBackend> NewRpcBackend(ServerSet* servers);

}  // namespace deltameta
