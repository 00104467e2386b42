// The memtable of stores read while they are written (the IndexFS servers'): each entry is
// found through a hash of its user key instead of a skip list's search, and the entries
// are sorted only when read in order (the memtable's flush, an iterator), with
// store/sorted_entries.h's sort. RocksDB's skip list was 12% of all CPU time in run 1 at
// the guide's scale, a sixth of the servers'; a create costs a server 16.4k instructions
// with this memtable, 29.8k with the skip list (core/doc/measurements.md, "Run 1's creates
// and lstats: the server's memtable"). One writer (concurrent memtable writes off) takes
// no lock; readers take none. Only for stores whose comparator is RocksDB's bytewise one:
// a key's entries are found by its bytes.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>

#include <rocksdb/memtablerep.h>

namespace deltameta {

class HashedMemTableFactory : public rocksdb::MemTableRepFactory {
 public:
  using rocksdb::MemTableRepFactory::CreateMemTableRep;
  rocksdb::MemTableRep* CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& compare,
                                          rocksdb::Allocator* allocator, const rocksdb::SliceTransform* prefix,
                                          rocksdb::Logger* logger) override;
  const char* Name() const override { return "DeltametaHashedMemTableFactory"; }

 private:
  // How many keys a memtable held when its index last grew: each new one's index starts
  // with room for that many, so that it does not grow while written (RocksDB makes the
  // next memtable before it freezes the last; shared with the memtables, which may
  // outlive the factory's options).
  std::shared_ptr<std::atomic<size_t>> last_keys_ = std::make_shared<std::atomic<size_t>>(0);
};

}  // namespace deltameta
