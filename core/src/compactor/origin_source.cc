// The compactor's origin stores: see origin_source.h.
#include "compactor/origin_source.h"

#include <cstdlib>

#include "deltameta/key.h"
#include "deltameta/layout.h"
#include "deltameta/partition.h"
#include "deltameta/stat_codec.h"
#include "deltameta/storage.h"

namespace deltameta {

Status FindOriginStores(const std::string& src_uri, uint32_t* count) {
  StorageLocation src;
  Status s = StorageLocation::Resolve(src_uri, &src);
  if (!s.ok()) return s;
  s = src.Exists();
  if (s.IsNotFound()) {
    return Status::NotFound("source " + src_uri +
                            " does not exist: pass the --db of a DeltaFS write phase as --src_dir");
  }
  if (!s.ok()) return s;
  StoreLayout first;
  s = ReadLayout(RankStore(src, 0), &first);
  if (!s.ok()) return Status::InvalidArgument(s.ToString() + ": pass the --db of a DeltaFS write phase as --src_dir");
  for (uint32_t i = 0; s.ok() && i < first.count; i++) {
    const StorageLocation dir = RankStore(src, i);
    StoreLayout l;
    s = ReadLayout(dir, &l);
    if (s.ok()) s = CheckLayout(dir.uri(), l, StoreLayout{StoreLayout::Kind::kOrigin, i, first.count});
  }
  if (s.ok()) *count = first.count;
  return s;
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
