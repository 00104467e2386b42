// The MD-Workbench tool's deltafs interface (interface.h): what DeltaFS's design serves of
// the pattern. Its namespace is written by each rank into a store of its own, merged by
// the parallel compaction, and then read-only:
//   - precreate (OpenDeltafsWriter): creates go into the rank's origin store <root>/r<rank>
//     as deltameta_client --fs_use_local=1 writes them (write batches of
//     write_ahead_log_buffer bytes, an unsorted memtable sorted at flush), each entry's
//     value the encoded stat followed by the object's bytes; Finish flushes the store;
//   - deltameta_compactor then merges the ranks' stores into partitions (the values, data
//     included, travel unchanged as entry records, so an object is at most
//     kMaxInlineDataBytes);
//   - benchmark (ConnectDeltafsReader): the read-only servers of the compacted stores
//     serve stat (lstat) and read, through the indexfs interface's RPCs; create and delete
//     are not served (the servers would answer kReadOnly), so the benchmark phase stats and
//     reads precreated objects only, and there is no cleanup phase.
#include <unistd.h>

#include <algorithm>

#include <rocksdb/write_batch.h>

#include "client/workload.h"
#include "deltameta/key.h"
#include "deltameta/layout.h"
#include "deltameta/store.h"
#include "format/wire.h"
#include "mdworkbench/interface.h"
#include "store/rocksdb_status.h"

namespace deltameta {

const char kDeltafsNotServedReason[] =
    "DeltaFS's namespace is read-only after its compaction: its servers serve stat and read, not create or delete";

namespace {

class DeltafsWriter : public MdwInterface {
 public:
  DeltafsWriter(std::unique_ptr<Store> store, size_t batch_bytes)
      : store_(std::move(store)), batch_bytes_(batch_bytes) {
    stat_.mode = kObjectMode;
    stat_.uid = static_cast<uint32_t>(getuid());
    stat_.gid = static_cast<uint32_t>(getgid());
  }

  const char* name() const override { return "deltafs"; }
  bool Serves(OpType t) const override { return t == OpType::kCreate; }
  int64_t InlineDataMax() const override { return kMaxInlineDataBytes; }

  Outcome Create(const ObjectId& id, std::string_view data, std::string* error) override {
    const uint64_t dir = DataSetDirId(id.owner, id.set);
    key_.clear();
    AppendKey(&key_, dir, ObjectName(id));
    stat_.ino = dir ^ (id.index << 20) ^ id.index;
    stat_.size = data.size();
    stat_.mtime_us = stat_.ctime_us = NowMicros();
    value_.clear();
    AppendStat(&value_, stat_);
    value_.append(data.data(), data.size());
    Status s = FromRocksDb(pending_.Put(key_, value_));
    if (s.ok() && pending_.GetDataSize() >= batch_bytes_) s = WritePending();
    if (!s.ok()) {
      *error = s.WithContext("cannot write to store " + store_->location().uri()).ToString();
      return Outcome::kFatal;
    }
    return Outcome::kOk;
  }

  Outcome Stat(const ObjectId&, ObjectAttributes*, std::string* error) override { return NotServed("stat", error); }
  Outcome Read(const ObjectId&, std::string*, std::string* error) override { return NotServed("read", error); }
  Outcome Delete(const ObjectId&, std::string* error) override { return NotServed("delete", error); }

  bool Finish(std::string* error) override {
    Status s = WritePending();
    if (s.ok()) s = store_->Flush();
    if (s.ok()) s = store_->Close();
    if (!s.ok()) *error = s.WithContext("cannot write store " + store_->location().uri()).ToString();
    return s.ok();
  }

 private:
  Status WritePending() {
    if (pending_.Count() == 0) return Status::OK();
    Status s = store_->Write(&pending_);
    pending_.Clear();
    return s;
  }

  static Outcome NotServed(const char* op, std::string* error) {
    *error = std::string("the DeltaFS write phase has no ") + op + ": the rank's store is read after the compaction";
    return Outcome::kFatal;
  }

  std::unique_ptr<Store> store_;
  size_t batch_bytes_;
  rocksdb::WriteBatch pending_;
  FileStat stat_;
  std::string key_, value_;
};

// The indexfs interface's RPCs against read-only servers: stat and read only.
class DeltafsReader : public MdwInterface {
 public:
  explicit DeltafsReader(std::unique_ptr<MdwInterface> rpc) : rpc_(std::move(rpc)) {}

  const char* name() const override { return "deltafs"; }
  bool Serves(OpType t) const override { return t == OpType::kStat || t == OpType::kRead; }
  int64_t InlineDataMax() const override { return kMaxInlineDataBytes; }

  Outcome Create(const ObjectId&, std::string_view, std::string* error) override {
    *error = kDeltafsNotServedReason;
    return Outcome::kFatal;
  }
  Outcome Stat(const ObjectId& id, ObjectAttributes* attributes, std::string* error) override {
    return rpc_->Stat(id, attributes, error);
  }
  Outcome Read(const ObjectId& id, std::string* data, std::string* error) override {
    return rpc_->Read(id, data, error);
  }
  Outcome Delete(const ObjectId&, std::string* error) override {
    *error = kDeltafsNotServedReason;
    return Outcome::kFatal;
  }
  bool ServerCpuSeconds(double* cpu_s, std::string* error) override { return rpc_->ServerCpuSeconds(cpu_s, error); }

 private:
  std::unique_ptr<MdwInterface> rpc_;
};

}  // namespace

std::unique_ptr<MdwInterface> OpenDeltafsWriter(const std::string& root, uint32_t rank, uint32_t ranks,
                                                const ObjectSpace& space, const StoreOptions& options,
                                                std::string* error) {
  if (space.object_size > kMaxInlineDataBytes) {
    *error = "--object-size " + std::to_string(space.object_size) + " is over what DeltaFS can carry, " +
             std::to_string(kMaxInlineDataBytes) + " bytes: an entry's value must fit the compaction's entry record";
    return nullptr;
  }
  StoreOptions o = options;
  o.write_only = true;
  // The vector memtable's index, reserved for what one memtable can hold (each entry at
  // least its value and 24 bytes of key and index), and never more than the rank writes.
  const uint64_t memtable_bytes =
      static_cast<uint64_t>(o.memtable_size + o.memtable_size / 8 + o.write_ahead_log_buffer);
  o.write_only_entries =
      std::min<uint64_t>(space.data_sets * space.precreate, memtable_bytes / (24 + space.object_size) + 1);
  const StoreLayout layout{StoreLayout::Kind::kOrigin, rank, ranks};
  std::unique_ptr<Store> store;
  const Status opened = Store::Open(RankStore(root, rank), Store::Mode::kCreate, o, layout, &store);
  if (!opened.ok()) {
    *error = opened.ToString();
    return nullptr;
  }
  return std::make_unique<DeltafsWriter>(std::move(store), static_cast<size_t>(o.write_ahead_log_buffer));
}

std::unique_ptr<MdwInterface> ConnectDeltafsReader(const RpcSettings& rpc, std::string* error) {
  auto indexfs = ConnectIndexfsInterface(rpc, error);
  if (!indexfs) return nullptr;
  return std::make_unique<DeltafsReader>(std::move(indexfs));
}

}  // namespace deltameta
