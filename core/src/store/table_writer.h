// Writes entries given in strictly increasing key order into RocksDB table files of about
// the store's table size, ready to be ingested (bulk insertion, compaction output). One
// writer may also write several sorted runs, each ended by FinishTable, as tables that
// overlap one another (bulk insertion's bounded buffer, store_backends.cc).
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

  // Keys must be strictly increasing since the last FinishTable (or the start).
  rocksdb::Status Add(std::string_view key, std::string_view value);
  // Finishes the open table, if any: the next Add starts a new one, with any key.
  rocksdb::Status FinishTable();
  // Finishes the open table. *uris receives every table written since the last Finish, in
  // the order written (numbering goes on: a writer never reuses a name).
  rocksdb::Status Finish(std::vector<std::string>* uris);

 private:
  rocksdb::Status StartTable();

  rocksdb::Options options_;
  uint64_t target_bytes_;
  StorageLocation dir_;
  std::string prefix_;
  std::unique_ptr<rocksdb::SstFileWriter> writer_;
  uint64_t tables_ = 0;  // tables started
  std::vector<std::string> uris_;
};

}  // namespace deltameta
