// The compactor's input: the origin stores of a DeltaFS write phase, <src>/r0 .. r<count-1>
// (RankStore, layout.h), each marked "origin store i of count". FindOriginStores checks
// the whole set before anything is touched; an OriginSource chains the entries of the
// stores one compactor rank reads, each tagged with the rank whose partition owns it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <rocksdb/iterator.h>

#include "compactor/entry_source.h"
#include "deltameta/status.h"
#include "deltameta/store.h"

namespace deltameta {

// Finds the origin stores under `src_uri`: their count in *count, once r0 exists and
// every store r0 .. r<count-1> is marked as origin store i of that count (CheckLayout).
// A failure names the first that is missing or holds something else.
Status FindOriginStores(const std::string& src_uri, uint32_t* count);

// How much the source reads ahead at once, over all tables of the store it is reading
// (Store::NewScanIterator): with the stores opened scan_only (store_options.h), reading
// costs this, whatever the size of the stores.
constexpr size_t kScanReadaheadBytes = 256 << 10;

// Chains the entries of `stores` (opened read-only), in store order and each store's key
// order, checking every entry as it goes; owner() is the entry's partition among
// `partitions` (PartitionOf, partition.h). A store that cannot be read whole or holds a
// malformed entry is corrupt: `corrupt` gets the message naming it and must not return
// (the compactor aborts the job).
class OriginSource : public EntrySource {
 public:
  OriginSource(std::vector<std::unique_ptr<Store>> stores, uint32_t partitions,
               std::function<void(const std::string& message)> corrupt);
  bool Valid() const override { return it_ && it_->Valid(); }
  std::string_view key() const override { return Slice(it_->key()); }
  std::string_view value() const override { return Slice(it_->value()); }
  int owner() const override { return owner_; }
  void Next() override;

 private:
  static std::string_view Slice(const rocksdb::Slice& s) { return std::string_view(s.data(), s.size()); }
  // Moves to the next valid entry, crossing into the next store as needed.
  void Advance(bool fresh);
  [[noreturn]] void Corrupt(const std::string& what);

  std::vector<std::unique_ptr<Store>> stores_;
  uint32_t partitions_;
  std::function<void(const std::string& message)> corrupt_;
  size_t next_store_ = 0;
  std::unique_ptr<rocksdb::Iterator> it_;
  int owner_ = 0;
};

}  // namespace deltameta
