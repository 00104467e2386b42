// Metadata store over RocksDB: see store.h.
#include "deltameta/store.h"

#include <cstdarg>
#include <cstdio>

namespace deltameta {
namespace {

// Sends RocksDB's warnings to stderr instead of a LOG file, so read-only opens write nothing.
class StderrLogger : public rocksdb::Logger {
 public:
  StderrLogger() : rocksdb::Logger(rocksdb::WARN_LEVEL) {}
  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    std::fputs("rocksdb: ", stderr);
    std::vfprintf(stderr, format, ap);
    std::fputc('\n', stderr);
  }
};

// The environment of a read-only store: the location's, but RocksDB starts no flush or
// compaction threads in it (a read-only database never schedules either), so a read
// server carries only its own threads.
class NoBackgroundThreadsEnv : public rocksdb::EnvWrapper {
 public:
  explicit NoBackgroundThreadsEnv(rocksdb::Env* target) : rocksdb::EnvWrapper(target) {}
  const char* Name() const override { return "NoBackgroundThreadsEnv"; }
  void IncBackgroundThreadsIfNeeded(int, Priority) override {}
};

}  // namespace

std::unique_ptr<Store> Store::Open(const std::string& uri, Mode mode, const StoreOptions& options,
                                   const StoreLayout& create_layout, std::string* error) {
  StorageLocation where;
  if (!StorageLocation::Resolve(uri, &where, error)) return nullptr;
  const std::string& path = where.path();
  rocksdb::Options o = options.ToRocksDb();
  o.env = where.env();
  rocksdb::DB* db = nullptr;
  std::unique_ptr<rocksdb::Env> read_only_env;
  StoreLayout layout = create_layout;
  if (mode == Mode::kCreate) {
    if (where.HasEntries()) {
      *error = "a store already exists at " + uri + ": remove it, or open it with --use_existing_fs=1";
      return nullptr;
    }
    rocksdb::Status s = where.CreateDirs();
    if (!s.ok()) {
      *error = "cannot create store directory " + uri + ": " + s.ToString();
      return nullptr;
    }
    o.error_if_exists = true;
    s = rocksdb::DB::Open(o, path, &db);
    if (!s.ok()) {
      *error = "cannot create store at " + uri + ": " + s.ToString();
      return nullptr;
    }
    if (!WriteLayout(where, layout, error)) {
      delete db;
      return nullptr;
    }
  } else {
    if (!where.Exists()) {
      *error = "no store at " + uri + ": run the write phase first, or drop --use_existing_fs=1";
      return nullptr;
    }
    if (!ReadLayout(where, &layout, error)) return nullptr;
    o.create_if_missing = false;
    o.info_log = std::make_shared<StderrLogger>();
    read_only_env = std::make_unique<NoBackgroundThreadsEnv>(o.env);
    o.env = read_only_env.get();
    rocksdb::Status s = rocksdb::DB::OpenForReadOnly(o, path, &db);
    if (!s.ok()) {
      *error = "cannot open store at " + uri + " read-only: " + s.ToString();
      return nullptr;
    }
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
    it->SeekToFirst();
    if (!it->Valid()) {
      it.reset();
      delete db;
      *error = "the store at " + uri + " is empty: run the write phase first";
      return nullptr;
    }
  }
  return std::unique_ptr<Store>(
      new Store(where, layout, std::move(read_only_env), options.ToWriteOptions(), db));
}

Store::~Store() { Close(); }

rocksdb::Status Store::Put(std::string_view key, const FileStat& stat) {
  char value[kMaxEncodedStatBytes];
  const size_t n = EncodeStat(stat, value);
  return db_->Put(write_options_, rocksdb::Slice(key.data(), key.size()), rocksdb::Slice(value, n));
}

rocksdb::Status Store::Write(rocksdb::WriteBatch* batch) { return db_->Write(write_options_, batch); }

rocksdb::Status Store::Get(std::string_view key, std::string* value) {
  return db_->Get(rocksdb::ReadOptions(), rocksdb::Slice(key.data(), key.size()), value);
}

rocksdb::Status Store::Ingest(const std::vector<std::string>& table_uris) {
  std::vector<std::string> table_paths;
  for (const std::string& uri : table_uris) {
    StorageLocation table;
    std::string error;
    if (!StorageLocation::Resolve(uri, &table, &error)) return rocksdb::Status::InvalidArgument(error);
    if (table.env() != location_.env()) {
      return rocksdb::Status::InvalidArgument(uri + " is not in the file system of the store " + location_.uri() +
                                              ": write the tables into the same pool or directory tree");
    }
    table_paths.push_back(table.path());
  }
  rocksdb::IngestExternalFileOptions io;
  io.move_files = true;
  return db_->IngestExternalFile(table_paths, io);
}

uint64_t Store::CountEntries() {
  uint64_t n = 0;
  auto it = NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) n++;
  return n;
}

std::unique_ptr<rocksdb::Iterator> Store::NewIterator() {
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;
  return std::unique_ptr<rocksdb::Iterator>(db_->NewIterator(ro));
}

rocksdb::Status Store::Flush() {
  rocksdb::Status s = db_->FlushWAL(true);
  if (s.ok()) s = db_->Flush(rocksdb::FlushOptions());
  return s;
}

rocksdb::Status Store::Close() {
  if (!db_) return rocksdb::Status::OK();
  rocksdb::Status s = read_only() ? rocksdb::Status::OK() : Flush();
  rocksdb::Status c = db_->Close();
  db_.reset();
  return s.ok() ? c : s;
}

}  // namespace deltameta
