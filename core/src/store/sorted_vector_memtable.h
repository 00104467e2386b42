// The memtable of write-only stores (DeltaFS's write phase): entries kept in arrival order
// and sorted once, when the memtable is read (its flush), as RocksDB's vector memtable
// does, but with store/sorted_entries.h's sort, by each key's first 16 bytes after the
// prefix all its keys share before RocksDB's comparison. With RocksDB's vector memtable
// that sort was 44% of the flush thread's instructions, and the writer waited for the
// flush (core/doc/measurements.md, "Where run 3's DeltaFS insert spends its time"). Its
// one writer (concurrent memtable writes off) takes no lock per entry; readers of a
// memtable still written copy and sort.
#pragma once

#include <cstddef>

#include <rocksdb/memtablerep.h>

namespace deltameta {

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
