// Tests store/hashed_memtable.h through real RocksDB stores opened with the project's options
// for a server's store: every key comes back with its newest value, by Get and in order,
// before the flush and after it; a snapshot sees the values of its time; readers beside
// the writer find every key written before they looked while the index grows; the next
// memtable's index starts at the size the last one reached; and Gets before a flush, of
// this memtable and of the write-only stores' (store/sorted_vector_memtable.h), keep no
// memory (RocksDB's Get never frees the iterator it asks the memtable for).
#include "store/hashed_memtable.h"

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include "deltameta/store_options.h"
#include "expecting_store.h"

namespace deltameta {
namespace {

class HashedMemTableTest : public ExpectingStoreTest {
 protected:
  void Open() { OpenWith(StoreOptions().ToRocksDb()); }

  // A server's keys: an 8-byte directory id, then the file's name.
  static std::string Key(int i) { return std::string("\0\0\0\0\0\0\0\x01", 8) + "f" + std::to_string(i); }

  void ExpectEveryKeyByGetAndInOrder(const std::vector<std::string>& absent) {
    std::string value;
    for (const auto& [key, expected] : expected_) {
      ASSERT_TRUE(db_->Get(rocksdb::ReadOptions(), key, &value).ok()) << key;
      ASSERT_EQ(value, expected) << key;
    }
    for (const std::string& key : absent) EXPECT_TRUE(db_->Get(rocksdb::ReadOptions(), key, &value).IsNotFound());
    std::vector<std::pair<std::string, std::string>> scanned;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) scanned.emplace_back(it->key().ToString(), it->value().ToString());
    EXPECT_TRUE(it->status().ok());
    EXPECT_EQ(scanned, (std::vector<std::pair<std::string, std::string>>(expected_.begin(), expected_.end())));
  }
};

TEST_F(HashedMemTableTest, EveryKeyComesBackWithItsNewestValueBeforeAndAfterTheFlush) {
  Open();
  std::vector<int> order(5000);
  for (int i = 0; i < 5000; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(3));
  for (int i : order) Put(Key(i), "v" + std::to_string(i));  // far past the first index's 512 keys
  for (int i = 0; i < 5000; i += 7) Put(Key(i), "newer");
  std::vector<std::string> absent{Key(5000), Key(-1), "", "zzz"};
  for (int i = 3; i < 5000; i += 11) {
    Delete(Key(i));
    absent.push_back(Key(i));
  }
  ExpectEveryKeyByGetAndInOrder(absent);
  ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  ExpectEveryKeyByGetAndInOrder(absent);
  Put(Key(7), "after the flush");  // in the new memtable, over the table's value
  ExpectEveryKeyByGetAndInOrder(absent);
}

TEST_F(HashedMemTableTest, ASnapshotSeesTheValuesOfItsTime) {
  Open();
  Put("a", "old");
  Put("b", "kept");
  const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
  Put("a", "new");
  Delete("b");
  Put("c", "later");
  rocksdb::ReadOptions then;
  then.snapshot = snapshot;
  std::string value;
  ASSERT_TRUE(db_->Get(then, "a", &value).ok());
  EXPECT_EQ(value, "old");
  ASSERT_TRUE(db_->Get(then, "b", &value).ok());
  EXPECT_EQ(value, "kept");
  EXPECT_TRUE(db_->Get(then, "c", &value).IsNotFound());
  ASSERT_TRUE(db_->Get(rocksdb::ReadOptions(), "a", &value).ok());
  EXPECT_EQ(value, "new");
  EXPECT_TRUE(db_->Get(rocksdb::ReadOptions(), "b", &value).IsNotFound());
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(then));
  std::vector<std::string> seen;
  for (it->SeekToFirst(); it->Valid(); it->Next()) seen.push_back(it->key().ToString() + "=" + it->value().ToString());
  EXPECT_EQ(seen, (std::vector<std::string>{"a=old", "b=kept"}));
  it.reset();
  db_->ReleaseSnapshot(snapshot);
}

TEST_F(HashedMemTableTest, ReadersBesideTheWriterFindEveryKeyWrittenBeforeTheyLooked) {
  Open();
  const int kKeys = 30000;  // the index grows six times while read
  std::atomic<int> written{0};
  std::atomic<int> failed_puts{0}, missing{0}, wrong{0}, lookups{0};
  std::thread writer([&] {
    for (int i = 0; i < kKeys; ++i) {
      if (!db_->Put(rocksdb::WriteOptions(), Key(i), "v" + std::to_string(i)).ok()) ++failed_puts;
      written.store(i + 1, std::memory_order_release);
    }
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&, r] {
      std::mt19937 random(r);
      std::string value;
      for (int w; (w = written.load(std::memory_order_acquire)) < kKeys || lookups.load() < 1000;) {
        if (w == 0) continue;
        const int i = static_cast<int>(random() % static_cast<unsigned>(w));
        rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), Key(i), &value);
        if (!s.ok())
          ++missing;
        else if (value != "v" + std::to_string(i))
          ++wrong;
        ++lookups;
      }
    });
  }
  writer.join();
  for (auto& t : readers) t.join();
  EXPECT_EQ(failed_puts.load(), 0);
  EXPECT_EQ(missing.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GE(lookups.load(), 1000);
}

TEST_F(HashedMemTableTest, TheNextMemtablesIndexStartsAtTheSizeTheLastReached) {
  Open();
  uint64_t first = 0, next = 0;
  ASSERT_TRUE(db_->GetIntProperty("rocksdb.cur-size-active-mem-table", &first));
  for (int i = 0; i < 5000; ++i) Put(Key(i), "v");
  ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  ASSERT_TRUE(db_->GetIntProperty("rocksdb.cur-size-active-mem-table", &next));
  EXPECT_LT(first, 2 * 5000 * sizeof(void*));  // 1,024 slots
  EXPECT_GE(next, 2 * 5000 * sizeof(void*));   // room for 5,000 keys at most half full
  EXPECT_LT(next, 8 * 5000 * sizeof(void*) + first);
}

// Heap bytes in use after `lookups` Gets of the `keys` in a store's memtable, beyond before.
size_t HeapGrowthOfGets(rocksdb::DB* db, int keys, int lookups) {
  std::string value;
  for (int i = 0; i < keys; ++i) db->Get(rocksdb::ReadOptions(), "k" + std::to_string(i), &value);  // warm
  const size_t before = mallinfo2().uordblks;
  for (int i = 0; i < lookups; ++i) db->Get(rocksdb::ReadOptions(), "k" + std::to_string(i % keys), &value);
  const size_t after = mallinfo2().uordblks;
  return after > before ? after - before : 0;
}

TEST_F(HashedMemTableTest, GetsBeforeTheFlushKeepNoMemory) {
  for (bool write_only : {false, true}) {
    SCOPED_TRACE(write_only ? "write-only store" : "server store");
    StoreOptions options;
    options.write_only = write_only;
    options.write_only_entries = 2000;
    OpenWith(options.ToRocksDb(), write_only ? "write-only" : "server");
    for (int i = 0; i < 2000; ++i) Put("k" + std::to_string(i), "v");
    // An iterator kept per Get would hold 16 KiB or more each: 160 MiB over these.
    EXPECT_LT(HeapGrowthOfGets(db_.get(), 2000, 10000), 256u << 10);
  }
}

}  // namespace
}  // namespace deltameta
