// Tests table_writer.h: tables are cut at the table size, named in order, and ingest into a store;
// sorted runs ended by FinishTable overlap, and all of them ingest into a store in one call
// (as a bulk-insertion client's spills do), a key in two runs reading as the later run's.
#include "store/table_writer.h"

#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

#include "deltameta/key.h"
#include "deltameta/stat_codec.h"
#include "deltameta/store.h"
#include "temp_dir.h"

namespace deltameta {
namespace {

std::string KeyOf(int i) {
  char name[16];
  std::snprintf(name, sizeof(name), "f%08d", i);  // zero-padded: increasing i, increasing key
  return EncodeKey(3, name);
}

std::string ValueOf(int i) {
  FileStat s;
  s.ino = static_cast<uint64_t>(i) * 2654435761u;  // varied, so values do not compress away
  s.mode = 0100644;
  s.size = static_cast<uint64_t>(i);
  s.mtime_us = s.ctime_us = 1700000000000000 + static_cast<uint64_t>(i) * 977;
  std::string v;
  AppendStat(&v, s);
  return v;
}

TEST(TableWriterTest, WritesSeveralTablesThatIngestIntoAStore) {
  TempDir dir;
  StoreOptions options;
  options.table_size = 64 << 10;
  constexpr int kEntries = 20000;
  const std::string prefix = dir.path() + "/out-";
  std::vector<std::string> paths;
  {
    TableWriter writer(options, dir.location(), "out-");
    for (int i = 0; i < kEntries; i++) ASSERT_TRUE(writer.Add(KeyOf(i), ValueOf(i)).ok()) << i;
    ASSERT_TRUE(writer.Finish(&paths).ok());
  }
  ASSERT_GE(paths.size(), 3u);
  for (size_t i = 0; i < paths.size(); i++) {
    char name[32];
    std::snprintf(name, sizeof(name), "%06zu.sst", i + 1);
    EXPECT_EQ(paths[i], prefix + name);
    uintmax_t size = std::filesystem::file_size(paths[i]);
    if (i + 1 < paths.size()) {
      EXPECT_GE(size, 64u << 10) << paths[i];
    }
    EXPECT_LE(size, 2u * (64u << 10)) << paths[i];
  }

  std::unique_ptr<Store> store;
  const Status opened = Store::Open(dir.path() + "/store", Store::Mode::kCreate, options,
                                    StoreLayout{StoreLayout::Kind::kPartition, 0, 1}, &store);
  ASSERT_TRUE(opened.ok()) << opened.ToString();
  Status s = store->Ingest(paths);
  ASSERT_TRUE(s.ok()) << s.ToString();
  uint64_t entries = 0;
  ASSERT_TRUE(store->CountEntries(&entries).ok());
  EXPECT_EQ(entries, static_cast<uint64_t>(kEntries));
  for (int i : {0, 1, kEntries / 2, kEntries - 1}) {
    std::string value;
    ASSERT_TRUE(store->Get(KeyOf(i), &value).ok()) << i;
    EXPECT_EQ(value, ValueOf(i)) << i;
  }
}

TEST(TableWriterTest, NoEntriesNoTables) {
  TempDir dir;
  TableWriter writer(StoreOptions(), dir.location(), "out-");
  std::vector<std::string> paths = {"stale"};
  ASSERT_TRUE(writer.Finish(&paths).ok());
  EXPECT_TRUE(paths.empty());
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(TableWriterTest, RejectsKeysOutOfOrder) {
  TempDir dir;
  TableWriter writer(StoreOptions(), dir.location(), "out-");
  ASSERT_TRUE(writer.Add(KeyOf(2), ValueOf(2)).ok());
  EXPECT_FALSE(writer.Add(KeyOf(2), ValueOf(2)).ok());
  EXPECT_FALSE(writer.Add(KeyOf(1), ValueOf(1)).ok());
}

TEST(TableWriterTest, OverlappingRunsIngestInOneCallLaterRunsWinning) {
  TempDir dir;
  std::vector<std::string> paths;
  {
    TableWriter writer(StoreOptions(), dir.location(), "p0-");
    for (int run = 0; run < 3; run++) {
      // Run r holds every third key from r, and key 0 again with the run's value.
      if (run > 0) {
        ASSERT_TRUE(writer.Add(KeyOf(0), ValueOf(1000 + run)).ok());
      }
      for (int i = run; i < 3000; i += 3) {
        ASSERT_TRUE(writer.Add(KeyOf(i), ValueOf(i)).ok()) << i;
      }
      ASSERT_TRUE(writer.FinishTable().ok());
      ASSERT_TRUE(writer.FinishTable().ok());  // nothing open: no empty table
    }
    ASSERT_TRUE(writer.Finish(&paths).ok());
    std::vector<std::string> again = {"stale"};
    ASSERT_TRUE(writer.Finish(&again).ok());
    EXPECT_TRUE(again.empty());  // each table is handed out once
  }
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_EQ(paths.back(), dir.path() + "/p0-000003.sst");

  std::unique_ptr<Store> store;
  const Status opened = Store::Open(dir.path() + "/store", Store::Mode::kCreate, StoreOptions(),
                                    StoreLayout{StoreLayout::Kind::kPartition, 0, 1}, &store);
  ASSERT_TRUE(opened.ok()) << opened.ToString();
  Status s = store->Ingest(paths);
  ASSERT_TRUE(s.ok()) << s.ToString();
  uint64_t entries = 0;
  ASSERT_TRUE(store->CountEntries(&entries).ok());
  EXPECT_EQ(entries, 3000u);
  std::string value;
  ASSERT_TRUE(store->Get(KeyOf(0), &value).ok());
  EXPECT_EQ(value, ValueOf(1002));
  ASSERT_TRUE(store->Get(KeyOf(2999), &value).ok());
  EXPECT_EQ(value, ValueOf(2999));
}

}  // namespace
}  // namespace deltameta
