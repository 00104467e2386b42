// Collects one partition's entries in any order and writes them sorted into a new store:
// the receiving end of the parallel compaction. Entries are held as entry records
// (entry_record.h): shuffle batches as they arrived, single entries in 1 MiB blocks, so
// growing never copies what is held; the index that sorts them is made once, at Build,
// at its exact size.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "deltameta/layout.h"
#include "deltameta/storage.h"
#include "deltameta/store_options.h"

namespace deltameta {

class PartitionBuilder {
 public:
  // Keys and values shorter than 64 KiB.
  void Add(std::string_view key, std::string_view value);
  // Takes `records`, whole entry records back to back (a shuffle batch), as they are.
  // False, taking nothing, if they are not.
  bool AddRecords(std::string records);
  uint64_t size() const { return count_; }

  // Writes the entries sorted as tables under `staging` and ingests them into a new store
  // at `uri` with `layout`. A key added more than once is written once (the first value)
  // and counted in *duplicates. False with *error naming the location on failure.
  bool Build(const StorageLocation& staging, const std::string& uri, const StoreOptions& options,
             const StoreLayout& layout, uint64_t* duplicates, std::string* error);

 private:
  static constexpr size_t kBlockBytes = 1 << 20;
  std::vector<std::string> blocks_;  // each holds whole records
  bool last_is_open_ = false;        // Add may append to the last block (reserved, not taken)
  uint64_t count_ = 0;
};

}  // namespace deltameta
