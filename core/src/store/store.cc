// Metadata store over RocksDB: see store.h.
#include "deltameta/store.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <vector>

#include "store/rocksdb_status.h"

namespace deltameta {
namespace {

// RocksDB's log, instead of a LOG file in the store: its warnings and errors are kept
// (the last few, nothing printed: RocksDB logs from its background threads too, in
// several lines per event), so that a failed open can say what RocksDB saw, e.g. which
// log file held a damaged record. The store's own errors name what failed.
class StoreLogger : public rocksdb::Logger {
 public:
  StoreLogger() : rocksdb::Logger(rocksdb::WARN_LEVEL) {}
  using rocksdb::Logger::Logv;
  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
    if (level < rocksdb::WARN_LEVEL) return;
    char line[512];
    std::vsnprintf(line, sizeof(line), format, ap);
    std::lock_guard<std::mutex> lock(mu_);
    if (lines_.size() == kKept) lines_.erase(lines_.begin());
    lines_.emplace_back(line);
  }
  // The kept lines, "; "-separated.
  std::string Lines() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string all;
    for (const std::string& l : lines_) all += (all.empty() ? "" : "; ") + l;
    return all;
  }

 private:
  static constexpr size_t kKept = 4;
  std::mutex mu_;
  std::vector<std::string> lines_;
};

// `s` with what RocksDB logged before it, if anything.
Status Explained(const rocksdb::Status& s, StoreLogger* log) {
  const std::string lines = log->Lines();
  return WithRocksDbCode(s, s.ToString() + (lines.empty() ? "" : " (rocksdb: " + lines + ")"));
}

// The environment of a read-only store: the location's, but RocksDB starts no flush or
// compaction threads in it (a read-only database never schedules either), so a read
// server carries only its own threads.
class NoBackgroundThreadsEnv : public rocksdb::EnvWrapper {
 public:
  explicit NoBackgroundThreadsEnv(rocksdb::Env* target) : rocksdb::EnvWrapper(target) {}
  const char* Name() const override { return "NoBackgroundThreadsEnv"; }
  void IncBackgroundThreadsIfNeeded(int, Priority) override {}
};

// Whether `dir` holds RocksDB table files (*.sst).
bool HoldsTables(const StorageLocation& dir) {
  std::vector<std::string> names;
  if (!dir.ListChildren(&names).ok()) return false;
  for (const std::string& name : names) {
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".sst") == 0) return true;
  }
  return false;
}

}  // namespace

Status Store::Open(const std::string& uri, Mode mode, const StoreOptions& options, const StoreLayout& expected_layout,
                   std::unique_ptr<Store>* store) {
  store->reset();
  StorageLocation where;
  Status resolved = StorageLocation::Resolve(uri, &where);
  if (!resolved.ok()) return resolved;
  const std::string& path = where.path();
  rocksdb::Options o = options.ToRocksDb();
  o.env = where.env();
  // A log record damaged anywhere but at the very end (where a crash may cut one short)
  // fails the open instead of silently dropping it and everything after it.
  o.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  // No LOG file in the store: read-only opens then write nothing, and a full disk cannot
  // break the logger itself.
  auto log = std::make_shared<StoreLogger>();
  o.info_log = log;
  rocksdb::DB* db = nullptr;
  std::unique_ptr<rocksdb::Env> read_only_env;
  StoreLayout layout = expected_layout;
  if (mode == Mode::kCreate) {
    bool taken = false;
    Status s = where.HasEntries(&taken);
    if (!s.ok()) return s.WithContext("cannot create a store");
    if (taken) {
      return Status::InvalidArgument("a store already exists at " + uri +
                                     ": remove it, or open it with --use_existing_fs=1");
    }
    s = where.CreateDirs();
    if (!s.ok()) return s.WithContext("cannot create store directory " + uri);
    o.error_if_exists = true;
    s = FromRocksDb(rocksdb::DB::Open(o, path, &db));
    if (!s.ok()) return s.WithContext("cannot create store at " + uri);
    s = WriteLayout(where, layout);
    if (!s.ok()) {
      delete db;
      return s;
    }
  } else {
    Status s = where.Exists();
    if (s.IsNotFound()) {
      return Status::NotFound("no store at " + uri + ": run the write phase first, or drop --use_existing_fs=1");
    }
    if (s.ok()) s = ReadLayout(where, &layout);
    if (!s.ok()) return s;
    o.create_if_missing = false;
    read_only_env = std::make_unique<NoBackgroundThreadsEnv>(o.env);
    o.env = read_only_env.get();
    const rocksdb::Status opened = rocksdb::DB::OpenForReadOnly(o, path, &db);
    if (!opened.ok()) return Explained(opened, log.get()).WithContext("cannot open store at " + uri + " read-only");
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
    it->SeekToFirst();
    if (!it->Valid()) {
      const rocksdb::Status read = it->status();
      it.reset();
      delete db;
      if (!read.ok()) return Explained(read, log.get()).WithContext("cannot read the store at " + uri);
      if (HoldsTables(where)) {
        return Status::Corruption("the store at " + uri +
                                  " is damaged: its MANIFEST lists no entries but the directory holds " +
                                  "table files; restore it or run the write phase again");
      }
      return Status::NotFound("the store at " + uri + " is empty: run the write phase first");
    }
    s = CheckLayout(uri, layout, expected_layout);
    if (!s.ok()) {
      it.reset();
      delete db;
      return s;
    }
  }
  store->reset(new Store(where, layout, std::move(read_only_env), options.ToWriteOptions(), db));
  const bool flush_log = o.manual_wal_flush && !options.disable_write_ahead_logging && options.wal_flush_ms > 0;
  const int64_t reserve = where.is_rados() ? 0 : options.space_reserve;  // RADOS reports a full pool itself
  if (mode == Mode::kCreate && (flush_log || reserve > 0)) {
    (*store)->StartWatcher(options.wal_flush_ms > 0 ? options.wal_flush_ms : 100, flush_log, reserve);
  }
  return Status::OK();
}

Store::~Store() { Close(); }

void Store::StartWatcher(int64_t interval_ms, bool flush_log, int64_t reserve) {
  watcher_ = std::thread([this, interval_ms, flush_log, reserve]() mutable {
    std::unique_lock<std::mutex> lock(watcher_mu_);
    while (!watcher_wake_.wait_for(lock, std::chrono::milliseconds(interval_ms), [this] { return watcher_stop_; })) {
      if (!WatchOnce(&flush_log, reserve)) return;
    }
  });
}

bool Store::WatchOnce(bool* flush_log, int64_t reserve) {
  if (reserve > 0) {
    struct statvfs fs;
    if (statvfs(location_.path().c_str(), &fs) == 0) {
      const int64_t free_bytes = static_cast<int64_t>(fs.f_bavail) * static_cast<int64_t>(fs.f_frsize);
      const bool low = free_bytes < reserve;
      if (low != space_low_.load(std::memory_order_relaxed)) {
        std::fprintf(stderr, "deltameta: %s: %lld MiB free, %s the %lld MiB this store keeps for a clean close: %s\n",
                     location_.uri().c_str(), static_cast<long long>(free_bytes >> 20), low ? "below" : "above",
                     static_cast<long long>(reserve >> 20), low ? "creates are refused" : "creates resume");
        space_low_.store(low, std::memory_order_relaxed);
      }
    }
  }
  if (*flush_log) {
    // Writes the buffer to the file (no sync); a no-op when nothing was buffered.
    rocksdb::Status s = db_->FlushWAL(false);
    if (!s.ok()) {
      std::fprintf(stderr, "deltameta: cannot write the write-ahead log of %s: %s\n", location_.uri().c_str(),
                   s.ToString().c_str());
      *flush_log = false;
    }
  }
  return *flush_log || reserve > 0;
}

void Store::StopWatcher() {
  if (!watcher_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(watcher_mu_);
    watcher_stop_ = true;
  }
  watcher_wake_.notify_one();
  watcher_.join();
}

Status Store::NoSpace() const {
  return FromRocksDb(rocksdb::Status::NoSpace("less free space at " + location_.uri() +
                                              " than the store keeps for a clean close; free space or move the store"));
}

Status Store::Put(std::string_view key, const FileStat& stat) {
  if (space_low_.load(std::memory_order_relaxed)) return NoSpace();
  char value[kMaxEncodedStatBytes];
  const size_t n = EncodeStat(stat, value);
  return FromRocksDb(db_->Put(write_options_, rocksdb::Slice(key.data(), key.size()), rocksdb::Slice(value, n)));
}

Status Store::PutValue(std::string_view key, std::string_view value) {
  if (space_low_.load(std::memory_order_relaxed)) return NoSpace();
  return FromRocksDb(
      db_->Put(write_options_, rocksdb::Slice(key.data(), key.size()), rocksdb::Slice(value.data(), value.size())));
}

Status Store::Delete(std::string_view key) {
  if (space_low_.load(std::memory_order_relaxed)) return NoSpace();
  return FromRocksDb(db_->Delete(write_options_, rocksdb::Slice(key.data(), key.size())));
}

Status Store::Write(rocksdb::WriteBatch* batch) {
  if (space_low_.load(std::memory_order_relaxed)) return NoSpace();
  return FromRocksDb(db_->Write(write_options_, batch));
}

Status Store::Get(std::string_view key, std::string* value) {
  return FromRocksDb(db_->Get(rocksdb::ReadOptions(), rocksdb::Slice(key.data(), key.size()), value));
}

Status Store::Ingest(const std::vector<std::string>& table_uris) {
  std::vector<std::string> table_paths;
  for (const std::string& uri : table_uris) {
    StorageLocation table;
    const Status resolved = StorageLocation::Resolve(uri, &table);
    if (!resolved.ok()) return FromRocksDb(rocksdb::Status::InvalidArgument(resolved.ToString()));
    if (table.env() != location_.env()) {
      return FromRocksDb(rocksdb::Status::InvalidArgument(uri + " is not in the file system of the store " +
                                                          location_.uri() +
                                                          ": write the tables into the same pool or directory tree"));
    }
    table_paths.push_back(table.path());
  }
  rocksdb::IngestExternalFileOptions io;
  io.move_files = true;
  return FromRocksDb(db_->IngestExternalFile(table_paths, io));
}

Status Store::CountEntries(uint64_t* entries) {
  uint64_t n = 0;
  auto it = NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) n++;
  *entries = n;
  return FromRocksDb(it->status());
}
std::unique_ptr<rocksdb::Iterator> Store::NewIterator() {
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;
  return std::unique_ptr<rocksdb::Iterator>(db_->NewIterator(ro));
}

std::unique_ptr<rocksdb::Iterator> Store::NewScanIterator(size_t readahead_bytes) {
  std::vector<rocksdb::LiveFileMetaData> tables;
  db_->GetLiveFilesMetaData(&tables);
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;
  ro.readahead_size = std::min<size_t>(readahead_bytes / std::max<size_t>(1, tables.size()), 256 << 10);
  return std::unique_ptr<rocksdb::Iterator>(db_->NewIterator(ro));
}

Status Store::Flush() {
  rocksdb::Status s = db_->FlushWAL(true);
  if (s.ok()) s = db_->Flush(rocksdb::FlushOptions());
  return FromRocksDb(s);
}

Status Store::Close() {
  if (!db_) return Status::OK();
  StopWatcher();
  Status s = read_only() ? Status::OK() : Flush();
  Status c = FromRocksDb(db_->Close());
  db_.reset();
  return s.ok() ? c : s;
}

}  // namespace deltameta
