// A memtable's entries in its comparator's order: the sort the project's memtables do when
// they are read in order (their flush, an iterator), first by each key's 16 bytes after
// the prefix all keys share, read as two integers, then by RocksDB's comparator, which
// only ties reach (core/doc/measurements.md, "Where run 3's DeltaFS insert spends its
// time"); and the iterators over such sorted entries that those memtables hand out.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include <rocksdb/memtablerep.h>

namespace deltameta {

using MemTableEntries = std::vector<const char*>;

// Sorts a memtable's entries (RocksDB's length-prefixed internal keys, each followed by its
// value) in `compare`'s order as the memtable's flush does: first by their 16 bytes after
// the common prefix, then as the comparator says. Returns false where the result was not in
// the comparator's order (not bytewise), which it then sorts again with the comparator alone.
bool SortMemTableEntries(const rocksdb::MemTableRep::KeyComparator& compare, MemTableEntries* entries);

// Iterates sorted entries: `shared` ones (a read-only memtable's, sorted once and kept by
// it), or a sorted copy it owns.
class SortedEntriesIterator : public rocksdb::MemTableRep::Iterator {
 public:
  SortedEntriesIterator(const rocksdb::MemTableRep::KeyComparator& compare, const MemTableEntries* shared)
      : compare_(compare), entries_(shared) {}
  SortedEntriesIterator(const rocksdb::MemTableRep::KeyComparator& compare, MemTableEntries copy)
      : compare_(compare), copy_(std::move(copy)), entries_(&copy_) {}
  SortedEntriesIterator(const SortedEntriesIterator&) = delete;
  SortedEntriesIterator& operator=(const SortedEntriesIterator&) = delete;

  bool Valid() const override { return at_ < entries_->size(); }
  const char* key() const override { return (*entries_)[at_]; }
  void Next() override { ++at_; }
  void Prev() override { at_ = at_ == 0 ? entries_->size() : at_ - 1; }
  void Seek(const rocksdb::Slice& internal_key, const char* memtable_key) override;
  void SeekForPrev(const rocksdb::Slice& internal_key, const char* memtable_key) override;
  void SeekToFirst() override { at_ = 0; }
  void SeekToLast() override { at_ = entries_->empty() ? 0 : entries_->size() - 1; }

  // An iterator in `place` (memory RocksDB's arena iterators are built in, which is only
  // destroyed there, never freed), or on the heap where `place` is null.
  template <typename... Args>
  static rocksdb::MemTableRep::Iterator* Make(void* place, Args&&... args) {
    if (place != nullptr) return new (place) SortedEntriesIterator(std::forward<Args>(args)...);
    return new SortedEntriesIterator(std::forward<Args>(args)...);
  }

 private:
  // How many entries are before the key (`and_equal`: or equal to it); the key as RocksDB's
  // internal key, or its memtable form where RocksDB gives that.
  size_t CountBefore(const rocksdb::Slice& internal_key, const char* memtable_key, bool and_equal) const;

  const rocksdb::MemTableRep::KeyComparator& compare_;
  MemTableEntries copy_;
  const MemTableEntries* entries_;
  size_t at_ = 0;
};

// What RocksDB's MemTableRep::Get reads: one user key's entries in the comparator's order
// (newest first), from the first at or after the key it is sought to; the other moves
// leave it invalid. Get asks GetDynamicPrefixIterator for it with no arena and never frees
// it, so each thread reuses one, which holds nothing to free: deleting it (what that
// method's other callers do: prefix seeks, in-place updates and merges, none of which the
// project's stores use) frees nothing either.
class KeyEntriesIterator : public rocksdb::MemTableRep::Iterator {
 public:
  // Appends a user key's entries, in any order.
  using Finder = std::function<void(std::string_view user_key, MemTableEntries* entries)>;

  // This thread's iterator, finding entries with `find` from now on.
  static KeyEntriesIterator* ForThisThread(const rocksdb::MemTableRep::KeyComparator& compare, Finder find);
  static void operator delete(void*) {}

  bool Valid() const override { return at_ < entries_->size(); }
  const char* key() const override { return (*entries_)[at_]; }
  void Next() override { ++at_; }
  void Seek(const rocksdb::Slice& internal_key, const char* memtable_key) override;
  void Prev() override { at_ = entries_->size(); }
  void SeekForPrev(const rocksdb::Slice& /*internal_key*/, const char* /*memtable_key*/) override {
    at_ = entries_->size();
  }
  void SeekToFirst() override { at_ = entries_->size(); }
  void SeekToLast() override { at_ = entries_->size(); }

 private:
  KeyEntriesIterator(const rocksdb::MemTableRep::KeyComparator& compare, const Finder* find, MemTableEntries* entries)
      : compare_(&compare), find_(find), entries_(entries) {}

  const rocksdb::MemTableRep::KeyComparator* compare_;
  const Finder* find_;
  MemTableEntries* entries_;
  size_t at_ = 0;
};

// Hands out a memtable's iterators: over its entries sorted once and kept, once it is read
// only (its flush), or over a sorted copy while it is still written. Iterators RocksDB
// asks for in an arena are only destroyed there, never freed, so their memory is kept
// here, by the memtable (the arena's owner holds the memtable until then).
class SortedEntriesIterators {
 public:
  explicit SortedEntriesIterators(const rocksdb::MemTableRep::KeyComparator& compare) : compare_(compare) {}

  // `entries` copies the memtable's entries (those published to readers so far).
  rocksdb::MemTableRep::Iterator* New(rocksdb::Arena* arena, bool read_only,
                                      const std::function<MemTableEntries()>& entries);

 private:
  const rocksdb::MemTableRep::KeyComparator& compare_;
  std::mutex mutex_;  // readers': the sorted entries and the iterators' memory
  bool sorted_ready_ = false;
  MemTableEntries sorted_;
  std::vector<std::unique_ptr<std::max_align_t[]>> iterator_memory_;
};

}  // namespace deltameta
