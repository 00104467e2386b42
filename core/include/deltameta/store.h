// A metadata store: one RocksDB database holding key -> encoded FileStat (followed, for an
// object with inline data, by its bytes: see PutValue), plus its layout marker.
// Thread-safe for concurrent Put/Get/Ingest. A writable store may run one watcher thread
// (StoreOptions::wal_flush_ms, space_reserve): it writes the buffered write-ahead log out
// at that interval, which bounds what a crash of the process can lose, and it keeps free
// space for a clean close: while the store's file system has less than the reserve free,
// writes are refused (NoSpace) before they reach RocksDB, so what was acknowledged can
// still be flushed into a table when the store closes.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "deltameta/layout.h"
#include "deltameta/stat_codec.h"
#include "deltameta/status.h"
#include "deltameta/storage.h"
#include "deltameta/store_options.h"

namespace deltameta {

// A store is named by a storage URI (a local directory or rados://POOL/PREFIX, see storage.h).
class Store {
 public:
  enum class Mode {
    kCreate,    // `uri` must not hold a store yet; it is created with `layout`
    kReadOnly,  // `uri` must hold a non-empty store of `layout`; nothing in it is ever modified
  };

  // kCreate writes `layout` as the new store's marker; kReadOnly refuses a store whose
  // marker is not `layout` (CheckLayout, layout.h). Sets *store, or returns a failure
  // naming the location and the fix.
  static Status Open(const std::string& uri, Mode mode, const StoreOptions& options, const StoreLayout& layout,
                     std::unique_ptr<Store>* store);
  ~Store();

  const StorageLocation& location() const { return location_; }
  const StoreLayout& layout() const { return layout_; }
  bool read_only() const { return read_only_env_ != nullptr; }

  Status Put(std::string_view key, const FileStat& stat);
  // Puts a value as it is: an encoded stat and the object's inline data after it.
  Status PutValue(std::string_view key, std::string_view value);
  // Removes the key (a no-op if absent). Refused, like writes, while space is low.
  Status Delete(std::string_view key);
  // Applies a batch of puts atomically.
  Status Write(rocksdb::WriteBatch* batch);
  // Returns NotFound if absent.
  Status Get(std::string_view key, std::string* value);
  // Moves (links) the given table files, named by URI, into the store. They must be in
  // the same file system (directory tree or RADOS pool) as the store.
  Status Ingest(const std::vector<std::string>& table_uris);
  // Counts the entries by a full scan into *entries; a failure (a damaged table: Corruption,
  // naming the file) if the scan could not read every table.
  Status CountEntries(uint64_t* entries);
  std::unique_ptr<rocksdb::Iterator> NewIterator();
  // An iterator for one pass in key order over a store of any size: each of its tables is
  // read ahead in reads of `readahead_bytes` / tables (at most 256 KiB; block by block when
  // that is less than a block, in a store opened scan_only), so the pass buffers at most
  // readahead_bytes in all, where RocksDB's own readahead grows to 256 KiB for every table.
  std::unique_ptr<rocksdb::Iterator> NewScanIterator(size_t readahead_bytes);
  // Makes every acknowledged write durable: the WAL synced, the memtable written as a table.
  Status Flush();
  // Flushes (unless read-only) and closes the database.
  Status Close();

 private:
  // `read_only_env` is set for read-only stores: the environment `db` was opened in.
  Store(StorageLocation location, StoreLayout layout, std::unique_ptr<rocksdb::Env> read_only_env,
        rocksdb::WriteOptions w, rocksdb::DB* db)
      : location_(std::move(location)),
        layout_(layout),
        read_only_env_(std::move(read_only_env)),
        write_options_(w),
        db_(db) {}
  // Starts the watcher thread: every `interval_ms`, it writes the log buffer out (if
  // `flush_log`) and checks the free space against `reserve` bytes (if > 0).
  void StartWatcher(int64_t interval_ms, bool flush_log, int64_t reserve);
  // One round of the watcher; false once it has nothing left to do (the log failed).
  bool WatchOnce(bool* flush_log, int64_t reserve);
  void StopWatcher();
  Status NoSpace() const;

  StorageLocation location_;
  StoreLayout layout_;
  std::unique_ptr<rocksdb::Env> read_only_env_;  // declared before db_: outlives it
  rocksdb::WriteOptions write_options_;
  std::unique_ptr<rocksdb::DB> db_;
  std::atomic<bool> space_low_{false};  // set and cleared by the watcher only
  std::thread watcher_;
  std::mutex watcher_mu_;
  std::condition_variable watcher_wake_;
  bool watcher_stop_ = false;
};

}  // namespace deltameta
