// The client's store-backed modes: bulk insertion and the DeltaFS local store, and their
// set-up from the client's flags (store_backends.h).
#include "client/store_backends.h"

#include <algorithm>

#include <rocksdb/write_batch.h>

#include "deltameta/key.h"
#include "deltameta/layout.h"
#include "deltameta/partition.h"
#include "format/byte_order.h"
#include "store/table_writer.h"

namespace deltameta {
namespace {

// Creates buffered per owner as records [key length u16][stat length u8][key][encoded stat].
class BulkBackend : public ClientBackend {
 public:
  BulkBackend(ServerSet* servers, const StoreOptions& options, const StorageLocation& table_dir)
      : rpc_(NewRpcBackend(servers)),
        servers_(servers),
        options_(options),
        table_dir_(table_dir),
        buffers_(servers->size()) {}

  bool Create(uint64_t dir_id, std::string_view name, const FileStat& stat, OpStatus* status, std::string*) override {
    Buffer& b = buffers_[PartitionOf(name, servers_->size())];
    char value[kMaxEncodedStatBytes];
    const size_t value_len = EncodeStat(stat, value);
    char lengths[3];
    StoreLE<uint16_t>(lengths, static_cast<uint16_t>(kDirIdBytes + name.size()));
    lengths[2] = static_cast<char>(value_len);
    b.offsets.push_back(b.arena.size());
    b.arena.append(lengths, sizeof(lengths));
    AppendKey(&b.arena, dir_id, name);
    b.arena.append(value, value_len);
    *status = OpStatus::kOk;
    return true;
  }

  bool Lstat(uint64_t dir_id, std::string_view name, FileStat* stat, OpStatus* status, std::string* error) override {
    return rpc_->Lstat(dir_id, name, stat, status, error);
  }

  bool Commit(std::string* error) override {
    for (uint32_t p = 0; p < servers_->size(); p++) {
      if (buffers_[p].offsets.empty()) continue;
      std::vector<std::string> tables;
      if (!WriteTables(p, &tables, error) || !IngestAt(p, tables, error)) return false;
      buffers_[p] = Buffer();
    }
    return true;
  }

 private:
  struct Buffer {
    std::string arena;
    std::vector<size_t> offsets;
  };

  static std::string_view KeyAt(const std::string& arena, size_t off) {
    return std::string_view(arena.data() + off + 3, LoadLE<uint16_t>(arena.data() + off));
  }
  static std::string_view ValueAt(const std::string& arena, size_t off) {
    const std::string_view key = KeyAt(arena, off);
    return std::string_view(key.data() + key.size(), static_cast<uint8_t>(arena[off + 2]));
  }

  bool WriteTables(uint32_t p, std::vector<std::string>* tables, std::string* error) {
    Buffer& b = buffers_[p];
    std::sort(b.offsets.begin(), b.offsets.end(),
              [&b](size_t x, size_t y) { return KeyAt(b.arena, x) < KeyAt(b.arena, y); });
    TableWriter writer(options_, table_dir_, "p" + std::to_string(p) + "-");
    rocksdb::Status s;
    std::string_view last;
    for (size_t off : b.offsets) {
      std::string_view key = KeyAt(b.arena, off);
      if (key == last) continue;  // a name created twice in one phase is stored once
      s = writer.Add(key, ValueAt(b.arena, off));
      if (!s.ok()) break;
      last = key;
    }
    if (s.ok()) s = writer.Finish(tables);
    if (!s.ok()) *error = "cannot write bulk-insertion tables in " + table_dir_.uri() + ": " + s.ToString();
    return s.ok();
  }

  bool IngestAt(uint32_t p, const std::vector<std::string>& tables, std::string* error) {
    IngestRequest req{tables};
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
  StoreOptions options_;
  StorageLocation table_dir_;
  std::vector<Buffer> buffers_;
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
    rocksdb::Status s = store_->Get(key_, &value_);
    if (s.IsNotFound()) {
      *status = OpStatus::kNotFound;
    } else {
      *status = s.ok() && DecodeStat(value_, stat) ? OpStatus::kOk : OpStatus::kIoError;
    }
    return true;
  }

  bool LocalEntries(uint64_t* entries, std::string* error) override {
    rocksdb::Status s = store_->CountEntries(entries);
    if (!s.ok()) *error = "cannot count the entries of " + store_->location().uri() + ": " + s.ToString();
    return s.ok();
  }

  bool Commit(std::string* error) override {
    if (store_->read_only()) return true;
    if (!WritePending(error)) return false;
    rocksdb::Status s = store_->Flush();
    if (!s.ok()) *error = "cannot flush store " + store_->location().uri() + ": " + s.ToString();
    return s.ok();
  }

 private:
  bool WritePending(std::string* error) {
    rocksdb::Status s = store_->Write(&pending_);
    pending_.Clear();
    if (!s.ok()) *error = "cannot write to store " + store_->location().uri() + ": " + s.ToString();
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
  auto store = Store::Open(RankStore(flags.db, work.rank),
                           flags.use_existing_fs ? Store::Mode::kReadOnly : Store::Mode::kCreate, local, layout, error);
  if (!store) return nullptr;
  return NewLocalBackend(std::move(store), static_cast<size_t>(options.write_ahead_log_buffer));
}

std::unique_ptr<ClientBackend> StartBulkBackend(const ClientFlags& flags, const Workload& work, ServerSet* servers,
                                                const StoreOptions& options, std::string* error) {
  StorageLocation dir;
  if (!StorageLocation::Resolve(RankStore(flags.db, work.rank), &dir, error)) return nullptr;
  rocksdb::Status s = dir.CreateDirs();
  if (!s.ok()) {
    *error = "cannot create the bulk-insertion table directory " + dir.uri() + ": " + s.ToString();
    return nullptr;
  }
  return NewBulkBackend(servers, options, dir);
}

uint64_t MemtableEntries(const StoreOptions& o) {
  const uint64_t bytes = static_cast<uint64_t>(o.memtable_size + o.memtable_size / 8 + o.write_ahead_log_buffer);
  return bytes / 24 + 1;
}

}  // namespace deltameta
