// The memtable of write-only stores (DeltaFS's write phase): entries kept in arrival order
// and sorted once, when the memtable is read (its flush), as RocksDB's vector memtable
// does, but sorted by each key's first 16 bytes after the prefix all its keys share, read
// as two integers, before the full comparison of RocksDB's comparator, which only ties
// reach. With RocksDB's vector memtable that sort was 44% of the flush thread's
// instructions, and the writer waited for the flush (core/doc/measurements.md, "Where run
// 3's DeltaFS insert spends its time"). The order is RocksDB's bytewise one, which every
// store of the project uses; each sort is checked against the comparator and done again
// with it should any neighbours be out of its order. Its one writer (concurrent memtable
// writes off) takes no lock per entry; readers of a memtable still written copy and sort.
#pragma once

#include <cstddef>
#include <vector>

#include <rocksdb/memtablerep.h>

namespace deltameta {

// Sorts a memtable's entries (RocksDB's length-prefixed internal keys, each followed by its
// value) in `compare`'s order as the memtable's flush does: first by their 16 bytes after
// the common prefix, then as the comparator says. Returns false where the result was not in
// the comparator's order (not bytewise), which it then sorts again with the comparator alone.
bool SortMemTableEntries(const rocksdb::MemTableRep::KeyComparator& compare, std::vector<const char*>* entries);

class SortedVectorMemTableFactory : public rocksdb::MemTableRepFactory {
 public:
  // `reserved_entries`: how many entries each memtable's index holds before it grows.
  explicit SortedVectorMemTableFactory(size_t reserved_entries) : reserved_entries_(reserved_entries) {}

  using rocksdb::MemTableRepFactory::CreateMemTableRep;
  rocksdb::MemTableRep* CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& compare,
                                          rocksdb::Allocator* allocator, const rocksdb::SliceTransform* prefix,
                                          rocksdb::Logger* logger) override;
  const char* Name() const override { return "DeltametaSortedVectorMemTableFactory"; }

 private:
  size_t reserved_entries_;
};

}  // namespace deltameta
