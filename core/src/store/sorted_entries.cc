// The sort of a memtable's entries and the iterator over them: see sorted_entries.h.
#include "store/sorted_entries.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

#include <rocksdb/slice.h>

namespace deltameta {
namespace {

using rocksdb::MemTableRep;
using rocksdb::Slice;

constexpr size_t kInternalKeyTrailer = 8;  // sequence number and type after the user key

Slice UserKey(const MemTableRep::KeyComparator& compare, const char* entry) {
  Slice internal_key = compare.decode_key(entry);
  return Slice(internal_key.data(), internal_key.size() - kInternalKeyTrailer);
}

// Up to 8 bytes at `p` (`n` of them there, zeros after) as a big-endian integer, so that
// integers compare as the bytes do.
uint64_t LoadBigEndian(const char* p, size_t n) {
  unsigned char bytes[8] = {0};
  std::memcpy(bytes, p, std::min<size_t>(n, 8));
  uint64_t value = 0;
  for (unsigned char b : bytes) value = (value << 8) | b;
  return value;
}

// An entry's place in the sort: its user key's 16 bytes after the common prefix (zero
// padded), which order keys as bytewise comparison does wherever they differ, then RocksDB's
// comparison of the whole entry (the rest of the key, then the sequence number).
struct SortKey {
  uint64_t high;
  uint64_t low;
  const char* entry;
};

size_t CommonPrefix(const MemTableRep::KeyComparator& compare, const MemTableEntries& entries) {
  Slice first = UserKey(compare, entries.front());
  size_t common = first.size();
  for (const char* entry : entries) {
    Slice key = UserKey(compare, entry);
    size_t n = std::min(common, key.size());
    if (n == common && std::memcmp(key.data(), first.data(), n) == 0) continue;
    size_t i = 0;
    while (i < n && key[i] == first[i]) ++i;
    common = i;
    if (common == 0) break;
  }
  return common;
}

}  // namespace

bool SortMemTableEntries(const MemTableRep::KeyComparator& compare, MemTableEntries* entries) {
  if (entries->size() < 2) return true;
  size_t common = CommonPrefix(compare, *entries);
  std::vector<SortKey> keys;
  keys.reserve(entries->size());
  for (const char* entry : *entries) {
    Slice key = UserKey(compare, entry);
    const char* rest = key.data() + common;
    size_t left = key.size() - common;
    keys.push_back({LoadBigEndian(rest, left), left > 8 ? LoadBigEndian(rest + 8, left - 8) : 0, entry});
  }
  std::sort(keys.begin(), keys.end(), [&compare](const SortKey& a, const SortKey& b) {
    if (a.high != b.high) return a.high < b.high;
    if (a.low != b.low) return a.low < b.low;
    return compare(a.entry, b.entry) < 0;
  });
  bool in_order = true;
  for (size_t i = 0; i < keys.size(); ++i) {
    (*entries)[i] = keys[i].entry;
    if (i > 0 && in_order && compare(keys[i - 1].entry, keys[i].entry) > 0) in_order = false;
  }
  // Not bytewise order (a store opened with another comparator): the comparator's own sort.
  if (!in_order) {
    std::sort(entries->begin(), entries->end(), [&compare](const char* a, const char* b) { return compare(a, b) < 0; });
  }
  return in_order;
}

void SortedEntriesIterator::Seek(const Slice& internal_key, const char* memtable_key) {
  at_ = CountBefore(internal_key, memtable_key, /*and_equal=*/false);
}

void SortedEntriesIterator::SeekForPrev(const Slice& internal_key, const char* memtable_key) {
  size_t after = CountBefore(internal_key, memtable_key, /*and_equal=*/true);
  at_ = after == 0 ? entries_->size() : after - 1;
}

size_t SortedEntriesIterator::CountBefore(const Slice& internal_key, const char* memtable_key, bool and_equal) const {
  auto before = [&](const char* entry) {
    int c = memtable_key != nullptr ? compare_(entry, memtable_key) : compare_(entry, internal_key);
    return and_equal ? c <= 0 : c < 0;
  };
  return static_cast<size_t>(std::partition_point(entries_->begin(), entries_->end(), before) - entries_->begin());
}

KeyEntriesIterator* KeyEntriesIterator::ForThisThread(const MemTableRep::KeyComparator& compare, Finder find) {
  thread_local MemTableEntries entries;
  thread_local Finder finder;
  alignas(KeyEntriesIterator) thread_local unsigned char place[sizeof(KeyEntriesIterator)];
  finder = std::move(find);
  return new (place) KeyEntriesIterator(compare, &finder, &entries);
}

void KeyEntriesIterator::Seek(const Slice& internal_key, const char* /*memtable_key*/) {
  entries_->clear();
  (*find_)(std::string_view(internal_key.data(), internal_key.size() - kInternalKeyTrailer), entries_);
  auto before = [this](const char* a, const char* b) { return (*compare_)(a, b) < 0; };
  std::sort(entries_->begin(), entries_->end(), before);
  auto newer_than_reader = [&](const char* entry) { return (*compare_)(entry, internal_key) < 0; };
  at_ = static_cast<size_t>(std::partition_point(entries_->begin(), entries_->end(), newer_than_reader) -
                            entries_->begin());
}

rocksdb::MemTableRep::Iterator* SortedEntriesIterators::New(rocksdb::Arena* arena, bool read_only,
                                                            const std::function<MemTableEntries()>& entries) {
  void* place = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (arena != nullptr) {
      constexpr size_t kUnits =
          (sizeof(SortedEntriesIterator) + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
      iterator_memory_.emplace_back(new std::max_align_t[kUnits]);
      place = iterator_memory_.back().get();
    }
    if (read_only) {
      if (!sorted_ready_) {
        sorted_ = entries();
        SortMemTableEntries(compare_, &sorted_);
        sorted_ready_ = true;
      }
      return SortedEntriesIterator::Make(place, compare_, static_cast<const MemTableEntries*>(&sorted_));
    }
  }
  MemTableEntries copy = entries();
  SortMemTableEntries(compare_, &copy);
  return SortedEntriesIterator::Make(place, compare_, std::move(copy));
}

}  // namespace deltameta
