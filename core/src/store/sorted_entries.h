// A memtable's entries in its comparator's order: the sort the project's memtables do when
// they are read in order (their flush, an iterator), first by each key's 16 bytes after
// the prefix all keys share, read as two integers, then by RocksDB's comparator, which
// only ties reach (core/doc/measurements.md, "Where run 3's DeltaFS insert spends its
// time"); and the iterator over such sorted entries that those memtables hand out.
#pragma once

#include <cstddef>
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

}  // namespace deltameta
