// Collects one partition's entries in any order and writes them sorted into a new store:
// the receiving end of the parallel compaction. Entries are kept as records
// [key length u16][value length u8][key][value] in fixed 1 MiB blocks, so growing never
// copies what is held.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "deltameta/layout.h"
#include "deltameta/storage.h"
#include "deltameta/store_options.h"

namespace deltameta {

class PartitionBuilder {
 public:
  // Keys shorter than 64 KiB, values shorter than 256 bytes (an encoded stat).
  void Add(std::string_view key, std::string_view value);
  size_t size() const { return records_.size(); }

  // Writes the entries sorted as tables under `staging` and ingests them into a new store
  // at `uri` with `layout`. A key added more than once is written once (the first value)
  // and counted in *duplicates. False with *error naming the location on failure.
  bool Build(const StorageLocation& staging, const std::string& uri, const StoreOptions& options,
             const StoreLayout& layout, uint64_t* duplicates, std::string* error);

 private:
  static constexpr size_t kBlockBytes = 1 << 20;
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t used_ = 0;  // bytes of the last block in use
  std::vector<const char*> records_;
};

}  // namespace deltameta
