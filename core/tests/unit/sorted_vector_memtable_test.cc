// Tests store/sorted_vector_memtable.h through real RocksDB stores: what a write-only store
// reads back, before its flush and from the tables the flush writes, is every key in
// RocksDB's order with its newest value, whatever the keys share or how long they are, and
// a store with another comparator is still in that comparator's order, and readers beside
// the writer see sorted prefixes of its writes. (The sort alone: sorted_entries_test.cc.)
#include "store/sorted_vector_memtable.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/comparator.h>
#include <rocksdb/db.h>

#include "expecting_store.h"

namespace deltameta {
namespace {

class SortedVectorMemTableTest : public ExpectingStoreTest {
 protected:
  void Open(const rocksdb::Comparator* comparator = rocksdb::BytewiseComparator()) {
    rocksdb::Options options;
    options.create_if_missing = true;
    options.comparator = comparator;
    options.allow_concurrent_memtable_write = false;
    options.memtable_factory = std::make_shared<SortedVectorMemTableFactory>(16);
    OpenWith(options);
  }

  std::vector<std::pair<std::string, std::string>> Scan(bool backwards = false) {
    std::vector<std::pair<std::string, std::string>> got;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    if (backwards) {
      for (it->SeekToLast(); it->Valid(); it->Prev()) got.emplace_back(it->key().ToString(), it->value().ToString());
    } else {
      for (it->SeekToFirst(); it->Valid(); it->Next()) got.emplace_back(it->key().ToString(), it->value().ToString());
    }
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    return got;
  }

  std::vector<std::pair<std::string, std::string>> Expected() const { return {expected_.begin(), expected_.end()}; }

  void Flush() { ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok()); }

  // Keys as the DeltaFS write stores hold them (an 8-byte directory id, then names), and
  // keys that share nothing, end inside the 16 bytes compared as integers, differ only past
  // them, or only in a zero byte after one another's end.
  void PutMixedKeys() {
    std::vector<std::string> keys;
    const std::string dir("\0\0\0\0\0\0\0\x2a", 8);
    for (int i = 0; i < 3000; ++i) keys.push_back(dir + "f" + std::to_string(i % 4) + "." + std::to_string(i));
    for (int i = 0; i < 200; ++i) keys.push_back(dir + "same-first-sixteen-bytes:" + std::to_string(i));
    for (const char* k :
         {"a", "ab", "b", "\xff", "zz", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"})
      keys.emplace_back(k);
    keys.push_back(std::string("ab\0", 3));
    keys.push_back(std::string("ab\0c", 4));
    keys.push_back(dir);
    std::shuffle(keys.begin(), keys.end(), std::mt19937(7));
    for (size_t i = 0; i < keys.size(); ++i) Put(keys[i], "v" + std::to_string(i));
  }
};

TEST_F(SortedVectorMemTableTest, ReadsBackEveryKeyInOrderBeforeAndAfterTheFlush) {
  Open();
  PutMixedKeys();
  Put("ab", "newer");  // the newest value of a key comes back, once
  Delete("zz");
  EXPECT_EQ(Scan(), Expected());  // from the memtable being written: a sorted copy
  auto backwards = Expected();
  std::reverse(backwards.begin(), backwards.end());
  EXPECT_EQ(Scan(true), backwards);
  std::string value;
  ASSERT_TRUE(db_->Get(rocksdb::ReadOptions(), "ab", &value).ok());
  EXPECT_EQ(value, "newer");
  EXPECT_TRUE(db_->Get(rocksdb::ReadOptions(), "zz", &value).IsNotFound());
  Flush();  // the flush sorts the memtable in place and writes it as a table
  EXPECT_EQ(Scan(), Expected());
  EXPECT_EQ(Scan(true), backwards);
}

TEST_F(SortedVectorMemTableTest, SeeksLandOnTheFirstKeyAtOrAfterAndAtOrBefore) {
  Open();
  for (const char* k : {"b", "d", "f"}) Put(k, k);
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  it->Seek("c");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), "d");
  it->Seek("d");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), "d");
  it->SeekForPrev("e");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), "d");
  it->SeekForPrev("a");
  EXPECT_FALSE(it->Valid());
  it->Seek("g");
  EXPECT_FALSE(it->Valid());
}

TEST_F(SortedVectorMemTableTest, AnotherComparatorsOrderIsKept) {
  Open(rocksdb::ReverseBytewiseComparator());
  PutMixedKeys();
  Flush();
  auto backwards = Expected();
  std::reverse(backwards.begin(), backwards.end());
  EXPECT_EQ(Scan(), backwards);
}

TEST_F(SortedVectorMemTableTest, ManyFlushesOfAWrittenStoreKeepEveryEntry) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.allow_concurrent_memtable_write = false;
  options.write_buffer_size = 64 << 10;  // a flush every few hundred entries, beside the writes
  options.memtable_factory = std::make_shared<SortedVectorMemTableFactory>(16);
  OpenWith(options, "many");
  std::mt19937 random(11);
  for (int i = 0; i < 20000; ++i) Put("k" + std::to_string(random()), std::string(40, 'x'));
  Flush();
  EXPECT_EQ(Scan(), Expected());
}

// A reader iterating the memtable while the one writer appends to it (and moves its array
// as it grows) sees, each time, a sorted prefix of the writes that only grows.
TEST_F(SortedVectorMemTableTest, ReadersBesideTheWriterSeeSortedGrowingPrefixes) {
  Open();  // the index starts at 16 entries: it grows many times while read
  const int kKeys = 20000;
  std::atomic<bool> writing{true};
  std::atomic<int> failed_puts{0};
  std::thread writer([&] {
    std::mt19937 random(13);
    for (int i = 0; i < kKeys; ++i) {
      if (!db_->Put(rocksdb::WriteOptions(), "k" + std::to_string(random()), "v").ok()) ++failed_puts;
    }
    writing.store(false);
  });
  size_t scans = 0, last_count = 0;
  bool sorted = true, grew_only = true;
  while (writing.load() || scans == 0) {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    std::string previous;
    size_t count = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++count) {
      std::string key = it->key().ToString();
      if (count > 0 && !(previous < key)) sorted = false;
      previous = std::move(key);
    }
    if (count < last_count) grew_only = false;
    last_count = count;
    ++scans;
  }
  writer.join();
  EXPECT_EQ(failed_puts.load(), 0);
  EXPECT_TRUE(sorted);
  EXPECT_TRUE(grew_only);
  EXPECT_GT(scans, 1u);
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  size_t count = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++count;
  std::set<std::string> distinct;
  std::mt19937 random(13);
  for (int i = 0; i < kKeys; ++i) distinct.insert("k" + std::to_string(random()));
  EXPECT_EQ(count, distinct.size());
}

}  // namespace
}  // namespace deltameta
