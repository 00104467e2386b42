// A metadata store: one RocksDB database holding key -> encoded FileStat, plus its layout
// marker. Thread-safe for concurrent Put/Get/Ingest.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "deltameta/layout.h"
#include "deltameta/stat_codec.h"
#include "deltameta/store_options.h"

namespace deltameta {

class Store {
 public:
  enum class Mode {
    kCreate,    // `path` must not hold a store yet; it is created with the given layout
    kReadOnly,  // `path` must hold a non-empty store; nothing in it is ever modified
  };

  // Returns nullptr with *error (naming the path and the fix) on failure.
  static std::unique_ptr<Store> Open(const std::string& path, Mode mode, const StoreOptions& options,
                                     const StoreLayout& create_layout, std::string* error);
  ~Store();

  const std::string& path() const { return path_; }
  const StoreLayout& layout() const { return layout_; }
  bool read_only() const { return read_only_; }

  rocksdb::Status Put(std::string_view key, const FileStat& stat);
  // Applies a batch of puts atomically.
  rocksdb::Status Write(rocksdb::WriteBatch* batch);
  // Returns NotFound if absent.
  rocksdb::Status Get(std::string_view key, std::string* value);
  // Moves (links) the given table files into the store.
  rocksdb::Status Ingest(const std::vector<std::string>& table_paths);
  // Counts the entries by a full scan.
  uint64_t CountEntries();
  std::unique_ptr<rocksdb::Iterator> NewIterator();
  // Makes every acknowledged write durable: the WAL synced, the memtable written as a table.
  rocksdb::Status Flush();
  // Flushes (unless read-only) and closes the database.
  rocksdb::Status Close();

 private:
  Store(std::string path, StoreLayout layout, bool read_only, rocksdb::WriteOptions w, rocksdb::DB* db)
      : path_(std::move(path)), layout_(layout), read_only_(read_only), write_options_(w), db_(db) {}

  std::string path_;
  StoreLayout layout_;
  bool read_only_;
  rocksdb::WriteOptions write_options_;
  std::unique_ptr<rocksdb::DB> db_;
};

// True if `dir` exists and holds any file or directory.
bool DirectoryHasEntries(const std::string& dir);

}  // namespace deltameta
