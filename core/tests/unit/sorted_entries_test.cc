// Tests store/sorted_entries.h: the sort orders entries with about one comparator call per
// entry where keys are in bytewise order, the newer of a key's entries first. (Through real
// RocksDB stores: sorted_vector_memtable_test.cc.)
#include "store/sorted_entries.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/slice.h>

namespace deltameta {
namespace {

// RocksDB's memtable order on entries in its memtable format (varint32 length, user key,
// 8-byte little-endian sequence and type; the value left out): user keys bytewise, then
// the newer entry first. Counts its calls.
class CountingComparator : public rocksdb::MemTableRep::KeyComparator {
 public:
  int operator()(const char* a, const char* b) const override { return Compare(decode_key(a), decode_key(b)); }
  int operator()(const char* a, const rocksdb::Slice& key) const override { return Compare(decode_key(a), key); }
  mutable uint64_t calls = 0;

 private:
  int Compare(const rocksdb::Slice& a, const rocksdb::Slice& b) const {
    ++calls;
    int c = rocksdb::Slice(a.data(), a.size() - 8).compare(rocksdb::Slice(b.data(), b.size() - 8));
    if (c != 0) return c;
    uint64_t sa, sb;
    std::memcpy(&sa, a.data() + a.size() - 8, 8);
    std::memcpy(&sb, b.data() + b.size() - 8, 8);
    return sa > sb ? -1 : sa < sb ? 1 : 0;
  }
};

std::string Entry(const std::string& user_key, uint64_t sequence) {
  std::string entry(1, static_cast<char>(user_key.size() + 8));  // keys under 120 bytes: one byte
  entry += user_key;
  entry.append(reinterpret_cast<const char*>(&sequence), 8);
  return entry;
}

TEST(SortMemTableEntries, OrdersByTheKeysThenTheNewestFirstWithAboutOneComparisonAnEntry) {
  std::vector<std::string> storage;
  const std::string dir("\0\0\0\0\0\0\0\x07", 8);
  for (uint64_t i = 0; i < 10000; ++i) storage.push_back(Entry(dir + "f1." + std::to_string(i * 7919 % 10000), i));
  storage.push_back(Entry(dir + "f1.42", 20000));  // a newer entry of a key: before the older one
  std::vector<const char*> entries;
  for (const std::string& e : storage) entries.push_back(e.data());
  CountingComparator compare;
  EXPECT_TRUE(SortMemTableEntries(compare, &entries));
  EXPECT_LT(compare.calls, 3 * entries.size());  // RocksDB's own sort: about 14 an entry here
  for (size_t i = 1; i < entries.size(); ++i) ASSERT_LT(compare(entries[i - 1], entries[i]), 0) << i;
  auto newer = std::find(entries.begin(), entries.end(), storage.back().data());
  ASSERT_TRUE(newer != entries.end() && newer + 1 != entries.end());
  EXPECT_EQ(std::string(*(newer + 1) + 1, dir.size() + 5), dir + "f1.42");  // then the key's older entry
}

}  // namespace
}  // namespace deltameta
