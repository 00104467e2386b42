// The memtable of write-only stores: see sorted_vector_memtable.h.
#include "store/sorted_vector_memtable.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include <rocksdb/slice.h>

namespace deltameta {
namespace {

using rocksdb::MemTableRep;
using rocksdb::Slice;
using Entries = std::vector<const char*>;

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

size_t CommonPrefix(const MemTableRep::KeyComparator& compare, const Entries& entries) {
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

bool SortMemTableEntries(const MemTableRep::KeyComparator& compare, Entries* entries) {
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

namespace {

class SortedIterator : public MemTableRep::Iterator {
 public:
  // Over `shared` (a read-only memtable's entries, sorted in place), or a sorted copy.
  SortedIterator(const MemTableRep::KeyComparator& compare, const Entries* shared)
      : compare_(compare), entries_(shared) {}
  SortedIterator(const MemTableRep::KeyComparator& compare, Entries copy)
      : compare_(compare), copy_(std::move(copy)), entries_(&copy_) {}
  SortedIterator(const SortedIterator&) = delete;
  SortedIterator& operator=(const SortedIterator&) = delete;

  bool Valid() const override { return at_ < entries_->size(); }
  const char* key() const override { return (*entries_)[at_]; }
  void Next() override { ++at_; }
  void Prev() override { at_ = at_ == 0 ? entries_->size() : at_ - 1; }
  void Seek(const Slice& internal_key, const char* memtable_key) override {
    at_ = CountBefore(internal_key, memtable_key, /*and_equal=*/false);
  }
  void SeekForPrev(const Slice& internal_key, const char* memtable_key) override {
    size_t after = CountBefore(internal_key, memtable_key, /*and_equal=*/true);
    at_ = after == 0 ? entries_->size() : after - 1;
  }
  void SeekToFirst() override { at_ = 0; }
  void SeekToLast() override { at_ = entries_->empty() ? 0 : entries_->size() - 1; }

 private:
  // How many entries are before the key (`and_equal`: or equal to it); the key as RocksDB's
  // internal key, or its memtable form where RocksDB gives that.
  size_t CountBefore(const Slice& internal_key, const char* memtable_key, bool and_equal) const {
    auto before = [&](const char* entry) {
      int c = memtable_key != nullptr ? compare_(entry, memtable_key) : compare_(entry, internal_key);
      return and_equal ? c <= 0 : c < 0;
    };
    return static_cast<size_t>(std::partition_point(entries_->begin(), entries_->end(), before) - entries_->begin());
  }

  const MemTableRep::KeyComparator& compare_;
  Entries copy_;
  const Entries* entries_;
  size_t at_ = 0;
};

class SortedVectorRep : public MemTableRep {
 public:
  SortedVectorRep(const KeyComparator& compare, rocksdb::Allocator* allocator, size_t reserved_entries)
      : MemTableRep(allocator),
        compare_(compare),
        capacity_(std::max<size_t>(reserved_entries, 1)),
        appended_(new const char*[capacity_]) {}

  // One writer at a time (the store turns concurrent memtable writes off), which takes no
  // lock: it writes the next slot and then publishes the count. Only growing the array, which
  // moves it, waits for readers copying it.
  void Insert(rocksdb::KeyHandle handle) override {
    size_t n = size_.load(std::memory_order_relaxed);
    if (n == capacity_) Grow(n);
    appended_[n] = static_cast<const char*>(handle);
    size_.store(n + 1, std::memory_order_release);
  }

  bool Contains(const char* key) const override {
    std::lock_guard<std::mutex> lock(grow_mutex_);
    const char* const* first = appended_.get();
    const char* const* last = first + size_.load(std::memory_order_acquire);
    return std::find(first, last, key) != last;
  }

  void MarkReadOnly() override { read_only_.store(true, std::memory_order_release); }

  size_t ApproximateMemoryUsage() override {
    return sizeof(*this) + size_.load(std::memory_order_relaxed) * sizeof(const char*);
  }

  // A read-only memtable (its flush) is sorted once and kept; one still written is copied
  // and the copy sorted. Iterators in an arena are only destroyed there, never freed, so
  // their memory is this memtable's (the arena's owner holds the memtable until then).
  MemTableRep::Iterator* GetIterator(rocksdb::Arena* arena) override {
    void* place = nullptr;
    {
      std::lock_guard<std::mutex> lock(iterators_mutex_);
      if (arena != nullptr) {
        constexpr size_t kUnits = (sizeof(SortedIterator) + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
        iterator_memory_.emplace_back(new std::max_align_t[kUnits]);
        place = iterator_memory_.back().get();
      }
      if (read_only_.load(std::memory_order_acquire)) {
        if (!sorted_ready_) {
          sorted_ = Copy();
          SortMemTableEntries(compare_, &sorted_);
          sorted_ready_ = true;
        }
        return Make(place, compare_, static_cast<const Entries*>(&sorted_));
      }
    }
    Entries copy = Copy();
    SortMemTableEntries(compare_, &copy);
    return Make(place, compare_, std::move(copy));
  }

 private:
  template <typename... Args>
  static MemTableRep::Iterator* Make(void* place, Args&&... args) {
    if (place != nullptr) return new (place) SortedIterator(std::forward<Args>(args)...);
    return new SortedIterator(std::forward<Args>(args)...);
  }

  // The writer's, with the array full at `n` entries: a twice larger one, moved to under
  // the lock readers copy under.
  void Grow(size_t n) {
    std::unique_ptr<const char*[]> larger(new const char*[2 * n]);
    std::copy(appended_.get(), appended_.get() + n, larger.get());
    std::lock_guard<std::mutex> lock(grow_mutex_);
    appended_ = std::move(larger);
    capacity_ = 2 * n;
  }

  // The entries published so far.
  Entries Copy() const {
    std::lock_guard<std::mutex> lock(grow_mutex_);
    const char* const* first = appended_.get();
    return Entries(first, first + size_.load(std::memory_order_acquire));
  }

  const KeyComparator& compare_;
  mutable std::mutex grow_mutex_;  // held by the writer only to move the array
  size_t capacity_;                // the writer's alone
  std::unique_ptr<const char*[]> appended_;
  std::atomic<size_t> size_{0};
  std::atomic<bool> read_only_{false};
  std::mutex iterators_mutex_;  // readers': the sorted entries and the iterators' memory
  bool sorted_ready_ = false;
  Entries sorted_;
  std::vector<std::unique_ptr<std::max_align_t[]>> iterator_memory_;
};

}  // namespace

rocksdb::MemTableRep* SortedVectorMemTableFactory::CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& compare,
                                                                     rocksdb::Allocator* allocator,
                                                                     const rocksdb::SliceTransform* /*prefix*/,
                                                                     rocksdb::Logger* /*logger*/) {
  return new SortedVectorRep(compare, allocator, reserved_entries_);
}

}  // namespace deltameta
