// The memtable of write-only stores: see sorted_vector_memtable.h.
#include "store/sorted_vector_memtable.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>

#include <rocksdb/slice.h>

#include "store/sorted_entries.h"

namespace deltameta {
namespace {

using rocksdb::MemTableRep;
using rocksdb::Slice;

constexpr size_t kInternalKeyTrailer = 8;  // sequence number and type after the user key

class SortedVectorRep : public MemTableRep {
 public:
  SortedVectorRep(const KeyComparator& compare, rocksdb::Allocator* allocator, bool has_prefix_extractor,
                  size_t reserved_entries)
      : MemTableRep(allocator),
        compare_(compare),
        has_prefix_extractor_(has_prefix_extractor),
        capacity_(std::max<size_t>(reserved_entries, 1)),
        appended_(new const char*[capacity_]),
        iterators_(compare) {}

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

  // Sorted once read only (its flush); while written, a sorted copy of what is published.
  MemTableRep::Iterator* GetIterator(rocksdb::Arena* arena) override {
    return iterators_.New(arena, read_only_.load(std::memory_order_acquire), [this] { return Copy(); });
  }

  // What RocksDB's Get reads: the key's entries, found by a scan of the published ones (a
  // write-only store is rarely read before its flush; a store with a prefix extractor seeks
  // its iterators with this method too: those get GetIterator's).
  MemTableRep::Iterator* GetDynamicPrefixIterator(rocksdb::Arena* arena) override {
    if (arena != nullptr || has_prefix_extractor_) return GetIterator(arena);
    return KeyEntriesIterator::ForThisThread(compare_, [this](std::string_view key, MemTableEntries* entries) {
      std::lock_guard<std::mutex> lock(grow_mutex_);
      const size_t n = size_.load(std::memory_order_acquire);
      for (size_t i = 0; i < n; ++i) {
        Slice internal_key = compare_.decode_key(appended_[i]);
        if (std::string_view(internal_key.data(), internal_key.size() - kInternalKeyTrailer) == key) {
          entries->push_back(appended_[i]);
        }
      }
    });
  }

 private:
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
  MemTableEntries Copy() const {
    std::lock_guard<std::mutex> lock(grow_mutex_);
    const char* const* first = appended_.get();
    return MemTableEntries(first, first + size_.load(std::memory_order_acquire));
  }

  const KeyComparator& compare_;
  const bool has_prefix_extractor_;
  mutable std::mutex grow_mutex_;  // held by the writer only to move the array
  size_t capacity_;                // the writer's alone
  std::unique_ptr<const char*[]> appended_;
  std::atomic<size_t> size_{0};
  std::atomic<bool> read_only_{false};
  SortedEntriesIterators iterators_;
};

}  // namespace

rocksdb::MemTableRep* SortedVectorMemTableFactory::CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& compare,
                                                                     rocksdb::Allocator* allocator,
                                                                     const rocksdb::SliceTransform* prefix,
                                                                     rocksdb::Logger* /*logger*/) {
  return new SortedVectorRep(compare, allocator, prefix != nullptr, reserved_entries_);
}

}  // namespace deltameta
