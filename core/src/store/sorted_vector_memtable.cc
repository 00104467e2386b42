// The memtable of write-only stores: see sorted_vector_memtable.h.
#include "store/sorted_vector_memtable.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "store/sorted_entries.h"

namespace deltameta {
namespace {

using rocksdb::MemTableRep;

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
        constexpr size_t kUnits =
            (sizeof(SortedEntriesIterator) + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
        iterator_memory_.emplace_back(new std::max_align_t[kUnits]);
        place = iterator_memory_.back().get();
      }
      if (read_only_.load(std::memory_order_acquire)) {
        if (!sorted_ready_) {
          sorted_ = Copy();
          SortMemTableEntries(compare_, &sorted_);
          sorted_ready_ = true;
        }
        return SortedEntriesIterator::Make(place, compare_, static_cast<const MemTableEntries*>(&sorted_));
      }
    }
    MemTableEntries copy = Copy();
    SortMemTableEntries(compare_, &copy);
    return SortedEntriesIterator::Make(place, compare_, std::move(copy));
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
  mutable std::mutex grow_mutex_;  // held by the writer only to move the array
  size_t capacity_;                // the writer's alone
  std::unique_ptr<const char*[]> appended_;
  std::atomic<size_t> size_{0};
  std::atomic<bool> read_only_{false};
  std::mutex iterators_mutex_;  // readers': the sorted entries and the iterators' memory
  bool sorted_ready_ = false;
  MemTableEntries sorted_;
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
