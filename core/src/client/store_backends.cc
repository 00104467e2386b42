// The client's store-backed modes: bulk insertion and the DeltaFS local store, and their
// set-up from the client's flags (store_backends.h).
#include "client/store_backends.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include <rocksdb/write_batch.h>

#include "deltameta/key.h"
#include "deltameta/layout.h"
#include "deltameta/partition.h"
#include "format/byte_order.h"
#include "store/table_writer.h"

namespace deltameta {
namespace {

// Creates buffered as records [key length u16][stat length u8][key][encoded stat] in one
// arena for all owners together, each owner indexed by 8-byte entries: the record's offset
// and a 4-byte sort prefix. The records and their index take at most table_size bytes
// (DELTAFS_Db_table_size; at most 2 GiB, the reach of the offsets), whatever --n: when the
// next create would not fit, every owner's buffered records are written sorted as one
// table of that owner (a spill), and the arena starts over. At commit the rest is spilled
// and each server ingests all of its tables from this client in one request (or a few, if
// they are more than a request can name), in the order written: tables of different
// spills overlap, which RocksDB ingests into level 0, later tables over earlier ones.
//
// The sort compares prefixes and reads a record only where two are equal: a prefix holds
// the 4 key bytes after the prefix all keys of the spill share (the directory id, and the
// "f<rank>." of the benchmark's names), zero-padded, so that comparing prefixes as
// big-endian numbers orders as comparing the keys. A comparison of two whole keys read
// from the arena made the sort 35% of a bulk client's instructions (doc/measurements.md,
// "Bulk insertion's margin at 1 and 2 client ranks").
class BulkBackend : public ClientBackend {
 public:
  BulkBackend(ServerSet* servers, const StoreOptions& options, const StorageLocation& table_dir)
      : rpc_(NewRpcBackend(servers)),
        servers_(servers),
        table_dir_(table_dir),
        bound_(static_cast<size_t>(std::min<int64_t>(options.table_size, INT32_MAX))),
        index_(servers->size()) {
    for (uint32_t p = 0; p < servers->size(); p++) {
      writers_.push_back(std::make_unique<TableWriter>(options, table_dir, "p" + std::to_string(p) + "-"));
    }
    // Address space only: pages are touched as records fill them. Names spread evenly over
    // the owners; an owner's index that outgrows twice its share grows as vectors do.
    arena_.reserve(bound_ + kMaxRecordBytes);
    const size_t most_entries = bound_ / (kMinRecordBytes + sizeof(IndexEntry)) + 1;
    for (std::vector<IndexEntry>& owned : index_) owned.reserve(2 * most_entries / index_.size() + 1);
  }

  bool Create(uint64_t dir_id, std::string_view name, const FileStat& stat, OpStatus* status,
              std::string* error) override {
    char value[kMaxEncodedStatBytes];
    const size_t value_len = EncodeStat(stat, value);
    const size_t key_len = kDirIdBytes + name.size();
    const size_t index_bytes = sizeof(IndexEntry) * (entries_ + 1);
    if (!arena_.empty() && arena_.size() + kHeaderBytes + key_len + value_len + index_bytes > bound_ && !Spill(error)) {
      return false;
    }
    char header[kHeaderBytes];
    StoreLE<uint16_t>(header, static_cast<uint16_t>(key_len));
    header[2] = static_cast<char>(value_len);
    index_[PartitionOf(name, servers_->size())].push_back({0, static_cast<uint32_t>(arena_.size())});
    entries_++;
    arena_.append(header, kHeaderBytes);
    AppendKey(&arena_, dir_id, name);
    arena_.append(value, value_len);
    *status = OpStatus::kOk;
    return true;
  }

  bool Lstat(uint64_t dir_id, std::string_view name, FileStat* stat, OpStatus* status, std::string* error) override {
    return rpc_->Lstat(dir_id, name, stat, status, error);
  }

  bool Commit(std::string* error) override {
    if (!Spill(error)) return false;
    for (uint32_t p = 0; p < servers_->size(); p++) {
      std::vector<std::string> tables;
      rocksdb::Status s = writers_[p]->Finish(&tables);
      if (!s.ok()) return TableError(s, error);
      if (!tables.empty() && !IngestAt(p, tables, error)) return false;
    }
    return true;
  }

 private:
  struct IndexEntry {
    uint32_t prefix;  // the 4 key bytes after the spill's common prefix, big-endian
    uint32_t offset;  // of the record in the arena
  };
  static constexpr size_t kHeaderBytes = 3;
  static constexpr size_t kMaxRecordBytes = kHeaderBytes + kDirIdBytes + kMaxNameBytes + kMaxEncodedStatBytes;
  static constexpr size_t kMinRecordBytes = kHeaderBytes + kDirIdBytes + 1 + 1;

  std::string_view KeyAt(uint32_t off) const {
    return std::string_view(arena_.data() + off + kHeaderBytes, LoadLE<uint16_t>(arena_.data() + off));
  }
  std::string_view ValueAt(uint32_t off) const {
    const std::string_view key = KeyAt(off);
    return std::string_view(key.data() + key.size(), static_cast<uint8_t>(arena_[off + 2]));
  }

  // The length of the prefix every buffered key shares (one pass over the arena in order).
  size_t CommonPrefix() const {
    if (arena_.empty()) return 0;
    const std::string_view first = KeyAt(0);
    size_t common = first.size();
    for (uint32_t off = 0; off < arena_.size();) {
      const std::string_view key = KeyAt(off);
      size_t i = 0;
      while (i < common && i < key.size() && key[i] == first[i]) i++;
      common = i;
      off += static_cast<uint32_t>(kHeaderBytes + key.size() + ValueAt(off).size());
    }
    return common;
  }

  // Writes the buffered creates as one sorted table per owner and empties the buffer.
  bool Spill(std::string* error) {
    const size_t common = CommonPrefix();
    rocksdb::Status s;
    for (uint32_t owner = 0; owner < index_.size() && s.ok(); owner++) {
      std::vector<IndexEntry>& owned = index_[owner];
      if (owned.empty()) continue;
      for (IndexEntry& e : owned) {
        const std::string_view key = KeyAt(e.offset);
        uint32_t prefix = 0;
        for (size_t i = common; i < common + 4; i++) prefix = prefix << 8 | (i < key.size() ? uint8_t(key[i]) : 0u);
        e.prefix = prefix;
      }
      std::sort(owned.begin(), owned.end(), [this](const IndexEntry& x, const IndexEntry& y) {
        return x.prefix != y.prefix ? x.prefix < y.prefix : KeyAt(x.offset) < KeyAt(y.offset);
      });
      TableWriter* writer = writers_[owner].get();
      std::string_view last;
      for (size_t i = 0; i < owned.size() && s.ok(); i++) {
        const std::string_view key = KeyAt(owned[i].offset);
        if (key == last) continue;  // a name created twice in one spill is written once
        s = writer->Add(key, ValueAt(owned[i].offset));
        last = key;
      }
      if (s.ok()) s = writer->FinishTable();
    }
    arena_.clear();
    for (std::vector<IndexEntry>& owned : index_) owned.clear();
    entries_ = 0;
    return s.ok() || TableError(s, error);
  }

  bool TableError(const rocksdb::Status& s, std::string* error) const {
    *error = "cannot write bulk-insertion tables in " + table_dir_.uri() + ": " + s.ToString();
    return false;
  }

  // Asks server p to ingest `tables`, in as few requests as the wire format allows.
  bool IngestAt(uint32_t p, const std::vector<std::string>& tables, std::string* error) {
    IngestRequest req;
    size_t body_bytes = 4;
    for (size_t i = 0; i < tables.size(); i++) {
      req.table_paths.push_back(tables[i]);
      body_bytes += 2 + tables[i].size();
      const bool last = i + 1 == tables.size();
      const bool full = req.table_paths.size() == kMaxListEntries ||
                        (!last && body_bytes + 2 + tables[i + 1].size() > kMaxFrameBodyBytes);
      if (!last && !full) continue;
      if (!IngestRequestAt(p, req, error)) return false;
      req.table_paths.clear();
      body_bytes = 4;
    }
    return true;
  }

  bool IngestRequestAt(uint32_t p, const IngestRequest& req, std::string* error) {
    RpcClient* s = servers_->server(p);
    std::string frame;
    EncodeIngest(req, s->NextSeq(), &frame);
    std::string_view body;
    if (!s->Call(frame, MsgType::kIngestReply, &body, error)) return false;
    IngestReply reply;
    if (!DecodeIngestReply(body, &reply)) {
      *error = "malformed ingest reply from server " + s->address();
      return false;
    }
    if (reply.status != OpStatus::kOk) {
      *error = "server " + s->address() + " could not ingest the bulk-insertion tables: " +
               (reply.message.empty() ? OpStatusName(reply.status) : reply.message) +
               " (the servers must see --db at the same path)";
      return false;
    }
    return true;
  }

  std::unique_ptr<ClientBackend> rpc_;
  ServerSet* servers_;
  StorageLocation table_dir_;
  size_t bound_;
  std::vector<std::unique_ptr<TableWriter>> writers_;  // one per owner, numbering its tables
  std::string arena_;
  std::vector<std::vector<IndexEntry>> index_;  // per owner
  size_t entries_ = 0;                          // in index_
};

// Creates go to the store in batches of the write-ahead log buffer's size: an acknowledged
// create may wait in the batch exactly as it would in the buffered WAL (the durability of
// the seed guide's 64 KiB WAL buffer), and reads write the batch first, so they see it.
class LocalBackend : public ClientBackend {
 public:
  LocalBackend(std::unique_ptr<Store> store, size_t batch_bytes)
      : store_(std::move(store)), batch_bytes_(batch_bytes) {}

  bool Create(uint64_t dir_id, std::string_view name, const FileStat& stat, OpStatus* status,
              std::string* error) override {
    key_.clear();
    AppendKey(&key_, dir_id, name);
    char value[kMaxEncodedStatBytes];
    const size_t n = EncodeStat(stat, value);
    rocksdb::Status s = pending_.Put(key_, rocksdb::Slice(value, n));
    *status = OpStatus::kOk;
    if (s.ok() && pending_.GetDataSize() < batch_bytes_) return true;
    return s.ok() && WritePending(error);
  }

  bool Lstat(uint64_t dir_id, std::string_view name, FileStat* stat, OpStatus* status, std::string* error) override {
    if (pending_.Count() > 0 && !WritePending(error)) return false;
    key_.clear();
    AppendKey(&key_, dir_id, name);
    const Status s = store_->Get(key_, &value_);
    if (s.IsNotFound()) {
      *status = OpStatus::kNotFound;
    } else {
      *status = s.ok() && DecodeStat(value_, stat) ? OpStatus::kOk : OpStatus::kIoError;
    }
    return true;
  }

  bool LocalEntries(uint64_t* entries, std::string* error) override {
    const Status s = store_->CountEntries(entries);
    if (!s.ok()) *error = s.WithContext("cannot count the entries of " + store_->location().uri()).ToString();
    return s.ok();
  }

  bool Commit(std::string* error) override {
    if (store_->read_only()) return true;
    if (!WritePending(error)) return false;
    const Status s = store_->Flush();
    if (!s.ok()) *error = s.WithContext("cannot flush store " + store_->location().uri()).ToString();
    return s.ok();
  }

 private:
  bool WritePending(std::string* error) {
    const Status s = store_->Write(&pending_);
    pending_.Clear();
    if (!s.ok()) *error = s.WithContext("cannot write to store " + store_->location().uri()).ToString();
    return s.ok();
  }

  std::unique_ptr<Store> store_;
  size_t batch_bytes_;
  rocksdb::WriteBatch pending_;
  std::string key_, value_;
};

}  // namespace

std::unique_ptr<ClientBackend> NewBulkBackend(ServerSet* servers, const StoreOptions& options,
                                              const StorageLocation& table_dir) {
  return std::make_unique<BulkBackend>(servers, options, table_dir);
}

std::unique_ptr<ClientBackend> NewLocalBackend(std::unique_ptr<Store> store, size_t batch_bytes) {
  return std::make_unique<LocalBackend>(std::move(store), batch_bytes);
}

std::unique_ptr<ClientBackend> OpenLocalBackend(const ClientFlags& flags, const Workload& work,
                                                const StoreOptions& options, std::string* error) {
  const StoreLayout layout{StoreLayout::Kind::kOrigin, work.rank, work.num_ranks};
  StoreOptions local = options;
  local.write_only = !flags.use_existing_fs;
  local.write_only_entries = std::min<uint64_t>(work.files_per_rank, MemtableEntries(options));
  std::unique_ptr<Store> store;
  const Status opened =
      Store::Open(RankStore(flags.db, work.rank), flags.use_existing_fs ? Store::Mode::kReadOnly : Store::Mode::kCreate,
                  local, layout, &store);
  if (!opened.ok()) {
    *error = opened.ToString();
    return nullptr;
  }
  return NewLocalBackend(std::move(store), static_cast<size_t>(options.write_ahead_log_buffer));
}

std::unique_ptr<ClientBackend> StartBulkBackend(const ClientFlags& flags, const Workload& work, ServerSet* servers,
                                                const StoreOptions& options, std::string* error) {
  StorageLocation dir;
  Status s = StorageLocation::Resolve(RankStore(flags.db, work.rank), &dir);
  if (s.ok()) s = dir.CreateDirs().WithContext("cannot create the bulk-insertion table directory " + dir.uri());
  if (!s.ok()) {
    *error = s.ToString();
    return nullptr;
  }
  return NewBulkBackend(servers, options, dir);
}

uint64_t MemtableEntries(const StoreOptions& o) {
  const uint64_t bytes = static_cast<uint64_t>(o.memtable_size + o.memtable_size / 8 + o.write_ahead_log_buffer);
  return bytes / 24 + 1;
}

}  // namespace deltameta
