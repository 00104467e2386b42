// How the MD-Workbench tool reaches its objects: one interface class, one implementation
// per file, as IOR's backends are.
//   posix_interface.cc    a directory tree on a local file system: a directory per data
//                         set, an object a file of its bytes (write(2), read(2), stat(2),
//                         unlink(2))
//   indexfs_interface.cc  the IndexFS metadata servers (deltameta_server): every operation
//                         one RPC to the name's owner; the data kept inline with the entry
//   deltafs_interface.cc  DeltaFS: precreate into the rank's own store (no servers), read
//                         back from the read-only servers of the compacted stores
//   cephfs_interface.cc   CephFS's MDS through libcephfs: posix's tree in a CephFS (builds
//                         with DELTAMETA_WITH_CEPHFS)
//
// Contract: an interface is used by one thread. Each operation returns its outcome;
// kFailed is an operation the file system or a server could not do (counted, the run goes
// on; *error says why), kFatal one after which the run cannot go on (a lost server, a
// configuration the servers refuse: *error is the job's one-line reason). An operation the
// interface does not serve returns kFatal; Serves() says beforehand which it serves.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "deltameta/store_options.h"
#include "mdworkbench/objects.h"

namespace deltameta {

enum class OpType { kCreate = 0, kStat = 1, kRead = 2, kDelete = 3 };
constexpr int kOpTypes = 4;
const char* OpTypeName(OpType t);  // "create", "stat", "read", "delete"

enum class Outcome { kOk, kNotFound, kExists, kFailed, kFatal };

struct ObjectAttributes {
  uint64_t size = 0;
  uint32_t mode = 0;  // file type and permission bits, as st_mode
};

class MdwInterface {
 public:
  virtual ~MdwInterface() = default;
  virtual const char* name() const = 0;
  // Whether it serves operations of type `t`.
  virtual bool Serves(OpType t) const { return true; }
  // The mode objects must show (posix: kObjectMode less the process's umask).
  virtual uint32_t ExpectedMode() const { return kObjectMode; }

  // A data set's container (a directory; nothing for key-value interfaces).
  virtual Outcome CreateDataSet(uint32_t owner, uint32_t set, std::string* error) { return Outcome::kOk; }
  virtual Outcome RemoveDataSet(uint32_t owner, uint32_t set, std::string* error) { return Outcome::kOk; }

  // Creates object `id` with `data`; kExists if it exists.
  virtual Outcome Create(const ObjectId& id, std::string_view data, std::string* error) = 0;
  virtual Outcome Stat(const ObjectId& id, ObjectAttributes* attributes, std::string* error) = 0;
  // Reads the whole object into *data.
  virtual Outcome Read(const ObjectId& id, std::string* data, std::string* error) = 0;
  virtual Outcome Delete(const ObjectId& id, std::string* error) = 0;
  // Ends a phase's writes: what it wrote is durable and visible (part of the timed phase).
  virtual bool Finish(std::string* error) { return true; }

  // The servers' CPU seconds so far (summed), where there are servers; false with *error
  // if one does not answer.
  virtual bool ServerCpuSeconds(double* cpu_s, std::string* error) {
    *cpu_s = 0;
    return true;
  }
  // The inline data limit the servers reported (their data-create replies), or -1 if not
  // known (no data create yet, or no servers).
  virtual int64_t InlineDataMax() const { return -1; }
};

// A tree under `root` (created if missing). nullptr with *error if it cannot be made.
std::unique_ptr<MdwInterface> NewPosixInterface(const std::string& root, std::string* error);

// A tree under `root` (an absolute path, made if missing) in CephFS file system `fs_name`
// ("" for the cluster's default) of the cluster of CEPH_CONF, every request bounded by
// `timeout_s` seconds. nullptr with *error if libcephfs, the cluster or the MDS fails.
std::unique_ptr<MdwInterface> OpenCephfsInterface(const std::string& root, const std::string& fs_name, int timeout_s,
                                                  std::string* error);

// Connection settings of the RPC interfaces.
struct RpcSettings {
  std::string info_uri;
  int client_rank = 0;
  std::chrono::milliseconds timeout{30000};
  std::string transport = "auto";  // as deltameta_client's --rpc_transport
};

// Every server of the job at `info_uri`. nullptr with *error if one cannot be reached.
std::unique_ptr<MdwInterface> ConnectIndexfsInterface(const RpcSettings& rpc, std::string* error);

// DeltaFS precreate: the rank's own origin store <root>/r<rank> of `ranks` (created; the
// write path of deltameta_client --fs_use_local=1, with the store settings `options`).
std::unique_ptr<MdwInterface> OpenDeltafsWriter(const std::string& root, uint32_t rank, uint32_t ranks,
                                                const ObjectSpace& space, const StoreOptions& options,
                                                std::string* error);
// DeltaFS benchmark: the read-only servers of the compacted stores; serves stat and read.
std::unique_ptr<MdwInterface> ConnectDeltafsReader(const RpcSettings& rpc, std::string* error);
// Why DeltaFS serves no create or delete after its compaction (for results and errors).
extern const char kDeltafsNotServedReason[];

}  // namespace deltameta
