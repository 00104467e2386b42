// Metadata store over RocksDB: see store.h.
#include "deltameta/store.h"

#include <cstdarg>
#include <cstdio>
#include <filesystem>

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

}  // namespace

bool DirectoryHasEntries(const std::string& dir) {
  std::error_code ec;
  return std::filesystem::is_directory(dir, ec) && !std::filesystem::is_empty(dir, ec);
}

std::unique_ptr<Store> Store::Open(const std::string& path, Mode mode, const StoreOptions& options,
                                   const StoreLayout& create_layout, std::string* error) {
  rocksdb::Options o = options.ToRocksDb();
  rocksdb::DB* db = nullptr;
  StoreLayout layout = create_layout;
  if (mode == Mode::kCreate) {
    if (DirectoryHasEntries(path)) {
      *error = "a store already exists at " + path + ": remove it, or open it with --use_existing_fs=1";
      return nullptr;
    }
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) {
      *error = "cannot create store directory " + path + ": " + ec.message();
      return nullptr;
    }
    o.error_if_exists = true;
    rocksdb::Status s = rocksdb::DB::Open(o, path, &db);
    if (!s.ok()) {
      *error = "cannot create store at " + path + ": " + s.ToString();
      return nullptr;
    }
    if (!WriteLayout(path, layout, error)) {
      delete db;
      return nullptr;
    }
  } else {
    if (!std::filesystem::exists(path)) {
      *error = "no store at " + path + ": run the write phase first, or drop --use_existing_fs=1";
      return nullptr;
    }
    if (!ReadLayout(path, &layout, error)) return nullptr;
    o.create_if_missing = false;
    o.info_log = std::make_shared<StderrLogger>();
    rocksdb::Status s = rocksdb::DB::OpenForReadOnly(o, path, &db);
    if (!s.ok()) {
      *error = "cannot open store at " + path + " read-only: " + s.ToString();
      return nullptr;
    }
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
    it->SeekToFirst();
    if (!it->Valid()) {
      it.reset();
      delete db;
      *error = "the store at " + path + " is empty: run the write phase first";
      return nullptr;
    }
  }
  return std::unique_ptr<Store>(
      new Store(path, layout, mode == Mode::kReadOnly, options.ToWriteOptions(), db));
}

Store::~Store() { Close(); }

rocksdb::Status Store::Put(std::string_view key, const FileStat& stat) {
  char value[kEncodedStatBytes];
  EncodeStat(stat, value);
  return db_->Put(write_options_, rocksdb::Slice(key.data(), key.size()),
                  rocksdb::Slice(value, sizeof(value)));
}

rocksdb::Status Store::Write(rocksdb::WriteBatch* batch) { return db_->Write(write_options_, batch); }

rocksdb::Status Store::Get(std::string_view key, std::string* value) {
  return db_->Get(rocksdb::ReadOptions(), rocksdb::Slice(key.data(), key.size()), value);
}

rocksdb::Status Store::Ingest(const std::vector<std::string>& table_paths) {
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
  rocksdb::Status s = read_only_ ? rocksdb::Status::OK() : Flush();
  rocksdb::Status c = db_->Close();
  db_.reset();
  return s.ok() ? c : s;
}

}  // namespace deltameta
