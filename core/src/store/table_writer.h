// Writes entries given in strictly increasing key order into RocksDB table files of about
// the store's table size, ready to be ingested (bulk insertion, compaction output).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <rocksdb/sst_file_writer.h>

#include "deltameta/storage.h"
#include "deltameta/store_options.h"

namespace deltameta {

class TableWriter {
 public:
  // Tables are written in `dir` (which must exist) as <name_prefix>000001.sst, ...
  TableWriter(const StoreOptions& options, const StorageLocation& dir, std::string name_prefix);
  ~TableWriter();

  // Keys must be strictly increasing across all calls.
  rocksdb::Status Add(std::string_view key, std::string_view value);
  // Finishes the open table. *uris receives every table written, in key order.
  rocksdb::Status Finish(std::vector<std::string>* uris);

 private:
  rocksdb::Status StartTable();

  rocksdb::Options options_;
  uint64_t target_bytes_;
  StorageLocation dir_;
  std::string prefix_;
  std::unique_ptr<rocksdb::SstFileWriter> writer_;
  std::vector<std::string> uris_;
};

}  // namespace deltameta
