// The compactor's origin stores: see origin_source.h.
#include "compactor/origin_source.h"

#include <cstdlib>

#include "deltameta/key.h"
#include "deltameta/layout.h"
#include "deltameta/partition.h"
#include "deltameta/stat_codec.h"
#include "deltameta/storage.h"

namespace deltameta {

bool FindOriginStores(const std::string& src_uri, uint32_t* count, std::string* error) {
  StorageLocation src;
  if (!StorageLocation::Resolve(src_uri, &src, error)) return false;
  if (!src.Exists()) {
    *error = "source " + src_uri + " does not exist: pass the --db of a DeltaFS write phase as --src_dir";
    return false;
  }
  StoreLayout first;
  if (!ReadLayout(RankStore(src, 0), &first, error)) {
    *error += ": pass the --db of a DeltaFS write phase as --src_dir";
    return false;
  }
  for (uint32_t i = 0; i < first.count; i++) {
    const StorageLocation dir = RankStore(src, i);
    StoreLayout l;
    if (!ReadLayout(dir, &l, error)) return false;
    if (!CheckLayout(dir.uri(), l, StoreLayout{StoreLayout::Kind::kOrigin, i, first.count}, error)) return false;
  }
  *count = first.count;
  return true;
}

OriginSource::OriginSource(std::vector<std::unique_ptr<Store>> stores, uint32_t partitions,
                           std::function<void(const std::string& message)> corrupt)
    : stores_(std::move(stores)), partitions_(partitions), corrupt_(std::move(corrupt)) {
  Advance(true);
}

void OriginSource::Next() {
  it_->Next();
  Advance(false);
}

void OriginSource::Advance(bool fresh) {
  for (;;) {
    if (fresh || (it_ && !it_->Valid())) {
      if (it_ && !it_->status().ok()) Corrupt("read error: " + it_->status().ToString());
      if (next_store_ == stores_.size()) {
        it_.reset();
        return;
      }
      it_ = stores_[next_store_++]->NewScanIterator(kScanReadaheadBytes);
      it_->SeekToFirst();
      fresh = false;
      continue;
    }
    if (!it_) return;
    uint64_t dir;
    std::string_view name;
    FileStat stat;
    // The value is an encoded stat, followed by an object's inline data if it has one
    // (deltameta_mdworkbench's DeltaFS objects); both travel unchanged.
    std::string_view value_view = value();
    if (!DecodeKey(key(), &dir, &name) || !ConsumeStat(&value_view, &stat)) Corrupt("malformed entry");
    owner_ = static_cast<int>(PartitionOf(name, partitions_));
    return;
  }
}

void OriginSource::Corrupt(const std::string& what) {
  corrupt_("source store " + stores_[next_store_ - 1]->location().uri() + " is corrupt (" + what +
           "): rerun the write phase");
  std::abort();  // `corrupt` must not return
}

}  // namespace deltameta
