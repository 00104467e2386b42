// Tests ingest_check.h: a server ingests bulk-insertion tables of its own partition and
// refuses, before anything moves, another partition's table, a store's own table, a table
// copied into a store, a damaged table, a symbolic link and a file that is not a table.
#include "server/ingest_check.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "deltameta/key.h"
#include "deltameta/partition.h"
#include "deltameta/store.h"
#include "store/table_writer.h"
#include "temp_dir.h"

namespace deltameta {
namespace {

namespace fs = std::filesystem;
constexpr uint32_t kPartitions = 2;

class IngestCheckTest : public ::testing::Test {
 protected:
  // Writes the keys of `count` names of partition `p` as bulk tables named `prefix`... in `dir`.
  std::vector<std::string> WriteTables(const std::string& dir, const std::string& prefix, uint32_t p, int count) {
    fs::create_directories(dir);
    StorageLocation where;
    const Status s = StorageLocation::Resolve(dir, &where);
    EXPECT_TRUE(s.ok()) << s.ToString();
    std::vector<std::string> keys;
    for (int i = 0; static_cast<int>(keys.size()) < count; i++) {
      const std::string name = "f" + std::to_string(i);
      if (PartitionOf(name, kPartitions) == p) keys.push_back(EncodeKey(1, name));
    }
    std::sort(keys.begin(), keys.end());
    TableWriter writer(StoreOptions(), where, prefix);
    for (const std::string& k : keys) EXPECT_TRUE(writer.Add(k, "v").ok());
    std::vector<std::string> tables;
    EXPECT_TRUE(writer.Finish(&tables).ok());
    return tables;
  }

  std::string Check(const std::vector<std::string>& tables, uint32_t partition = 0) {
    const Status s = CheckIngestTables(store_dir_.location(), partition, kPartitions, tables);
    return s.ok() ? "" : s.ToString();
  }

  TempDir dir_, store_dir_;
};

TEST_F(IngestCheckTest, AcceptsBulkTablesOfItsPartition) {
  const auto tables = WriteTables(dir_.path() + "/cli/r0", "p0-", 0, 500);
  EXPECT_EQ(Check(tables), "");
}

TEST_F(IngestCheckTest, RefusesTablesOfAnotherPartition) {
  const auto named_right = WriteTables(dir_.path() + "/cli/r0", "p0-", 1, 500);  // keys of partition 1
  EXPECT_NE(Check(named_right).find("of partition 1"), std::string::npos) << Check(named_right);
  const auto named_other = WriteTables(dir_.path() + "/cli/r1", "p1-", 1, 500);
  EXPECT_NE(Check(named_other).find("a table of partition 1"), std::string::npos) << Check(named_other);
  EXPECT_TRUE(fs::exists(named_right[0]));
}

TEST_F(IngestCheckTest, RefusesAnotherStoresTablesAndCopiesInStores) {
  const std::string other = dir_.path() + "/svr/r0";
  {
    std::unique_ptr<Store> store;
    const Status opened = Store::Open(other, Store::Mode::kCreate, StoreOptions(),
                                      StoreLayout{StoreLayout::Kind::kPartition, 0, kPartitions}, &store);
    ASSERT_TRUE(opened.ok()) << opened.ToString();
    ASSERT_TRUE(store->Put(EncodeKey(1, "f1"), FileStat()).ok());
  }
  std::vector<std::string> own;
  for (const auto& e : fs::directory_iterator(other)) {
    if (e.path().extension() == ".sst") own.push_back(e.path());
  }
  ASSERT_FALSE(own.empty());
  EXPECT_NE(Check(own).find("not a bulk-insertion table"), std::string::npos) << Check(own);
  const auto bulk = WriteTables(dir_.path() + "/cli/r0", "p0-", 0, 100);
  const std::string planted = other + "/p0-000001.sst";
  fs::copy_file(bulk[0], planted);
  EXPECT_NE(Check({planted}).find("lies in a store"), std::string::npos) << Check({planted});
  EXPECT_TRUE(fs::exists(own[0]));
}

TEST_F(IngestCheckTest, RefusesDamagedTablesLinksAndOtherFiles) {
  const auto tables = WriteTables(dir_.path() + "/cli/r0", "p0-", 0, 2000);
  {
    std::fstream f(tables[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(tables[0]) / 4));
    f.write("damaged damaged damaged", 23);
  }
  EXPECT_NE(Check(tables).find("Corruption"), std::string::npos) << Check(tables);

  const auto good = WriteTables(dir_.path() + "/cli/r1", "p0-", 0, 100);
  const std::string link = dir_.path() + "/cli/r1/p0-000009.sst";
  fs::create_symlink(good[0], link);
  EXPECT_NE(Check({link}).find("not a regular file"), std::string::npos) << Check({link});

  const std::string text = dir_.path() + "/cli/r1/p0-000010.sst";
  std::ofstream(text) << "not a table\n";
  EXPECT_NE(Check({text}), "");
  EXPECT_NE(Check({dir_.path() + "/cli/r1/p0-000011.sst"}).find("no such file"), std::string::npos);
}

}  // namespace
}  // namespace deltameta
