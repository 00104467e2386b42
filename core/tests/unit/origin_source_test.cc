// Tests origin_source.h over real stores in a temporary directory: finding a write phase's
// origin stores and refusing anything else, and chaining their entries, each tagged with
// its partition's rank, with a corrupt store reported by name.
#include "compactor/origin_source.h"

#include <filesystem>
#include <map>
#include <stdexcept>

#include <gtest/gtest.h>
#include <rocksdb/write_batch.h>

#include "deltameta/key.h"
#include "deltameta/partition.h"
#include "temp_dir.h"

namespace deltameta {
namespace {

FileStat StatOf(uint64_t i) {
  FileStat s;
  s.ino = i + 1;
  s.mode = 0100644;
  s.size = i;
  s.mtime_us = s.ctime_us = 1700000000000000;
  return s;
}

class OriginSourceTest : public ::testing::Test {
 protected:
  // Writes store <root>/r<index> of `layout` holding names f<index>.0 .. f<index>.<n-1>.
  void WriteStore(StoreLayout layout, int n) {
    std::unique_ptr<Store> store;
    const Status opened =
        Store::Open(RankStore(root_, layout.index), Store::Mode::kCreate, StoreOptions(), layout, &store);
    ASSERT_TRUE(opened.ok()) << opened.ToString();
    for (int i = 0; i < n; i++) {
      const std::string name = "f" + std::to_string(layout.index) + "." + std::to_string(i);
      ASSERT_TRUE(store->Put(EncodeKey(1, name), StatOf(static_cast<uint64_t>(i))).ok());
    }
    ASSERT_TRUE(store->Close().ok());
  }

  void WriteOrigins(uint32_t count, int n) {
    for (uint32_t i = 0; i < count; i++) WriteStore(StoreLayout{StoreLayout::Kind::kOrigin, i, count}, n);
  }

  std::unique_ptr<Store> OpenOrigin(uint32_t index, uint32_t count) {
    std::unique_ptr<Store> store;
    const Status opened = Store::Open(RankStore(root_, index), Store::Mode::kReadOnly, StoreOptions(),
                                      StoreLayout{StoreLayout::Kind::kOrigin, index, count}, &store);
    EXPECT_TRUE(opened.ok()) << opened.ToString();
    return store;
  }

  std::string Find(uint32_t* count) {
    const Status s = FindOriginStores(root_, count);
    return s.ok() ? "" : s.ToString();
  }

  TempDir dir_;
  const std::string root_ = dir_.path() + "/origin";
};

TEST_F(OriginSourceTest, FindsEveryOriginStoreOfTheWritePhase) {
  WriteOrigins(3, 5);
  uint32_t count = 0;
  EXPECT_EQ(Find(&count), "");
  EXPECT_EQ(count, 3u);
}

TEST_F(OriginSourceTest, RefusesWhatIsNotAWritePhase) {
  uint32_t count = 0;
  EXPECT_EQ(Find(&count), "source " + root_ + " does not exist: pass the --db of a DeltaFS write phase as --src_dir");
  std::filesystem::create_directories(root_ + "/r0");
  EXPECT_EQ(Find(&count), root_ +
                              "/r0 is not a deltameta store (no DELTAMETA-LAYOUT): pass the --db of a DeltaFS "
                              "write phase as --src_dir");
  std::filesystem::remove_all(root_);
  WriteStore(StoreLayout{StoreLayout::Kind::kPartition, 0, 1}, 5);
  EXPECT_EQ(Find(&count), root_ + "/r0 holds partition 0 of 1, expected origin store 0 of 1");
}

TEST_F(OriginSourceTest, RefusesAnIncompleteOrMixedSet) {
  WriteStore(StoreLayout{StoreLayout::Kind::kOrigin, 0, 3}, 5);
  WriteStore(StoreLayout{StoreLayout::Kind::kOrigin, 1, 2}, 5);
  uint32_t count = 0;
  EXPECT_EQ(Find(&count), root_ + "/r1 holds origin store 1 of 2, expected origin store 1 of 3");
  std::filesystem::remove_all(root_ + "/r1");
  WriteStore(StoreLayout{StoreLayout::Kind::kOrigin, 1, 3}, 5);
  EXPECT_EQ(Find(&count).find(root_ + "/r2 is not a deltameta store"), 0u);
}

TEST_F(OriginSourceTest, ChainsTheStoresEntriesWithTheirOwners) {
  WriteOrigins(3, 40);
  constexpr uint32_t kPartitions = 4;
  std::vector<std::unique_ptr<Store>> stores;
  for (uint32_t i : {2u, 0u}) stores.push_back(OpenOrigin(i, 3));
  OriginSource source(std::move(stores), kPartitions, [](const std::string& m) { throw std::runtime_error(m); });
  std::vector<std::string> names;
  std::map<int, int> owners;
  for (; source.Valid(); source.Next()) {
    uint64_t dir;
    std::string_view name;
    ASSERT_TRUE(DecodeKey(source.key(), &dir, &name));
    FileStat stat;
    ASSERT_TRUE(DecodeStat(source.value(), &stat));
    EXPECT_EQ(source.owner(), static_cast<int>(PartitionOf(name, kPartitions))) << name;
    names.emplace_back(name);
    owners[source.owner()]++;
  }
  ASSERT_EQ(names.size(), 80u);
  // Store r2 whole, in key order, then r0.
  for (size_t i = 0; i < names.size(); i++) {
    EXPECT_EQ(names[i].substr(0, 3), i < 40 ? "f2." : "f0.") << i;
    if (i % 40 != 0) {
      EXPECT_LT(names[i - 1], names[i]);
    }
  }
  EXPECT_EQ(owners.size(), kPartitions);
}

TEST_F(OriginSourceTest, WithoutStoresItIsEmpty) {
  OriginSource source({}, 2, [](const std::string& m) { throw std::runtime_error(m); });
  EXPECT_FALSE(source.Valid());
}

TEST_F(OriginSourceTest, AMalformedEntryIsReportedWithItsStore) {
  WriteOrigins(2, 3);
  {
    std::unique_ptr<Store> store;
    const Status opened = Store::Open(RankStore(root_, 1) + "-bad", Store::Mode::kCreate, StoreOptions(),
                                      StoreLayout{StoreLayout::Kind::kOrigin, 1, 2}, &store);
    ASSERT_TRUE(opened.ok()) << opened.ToString();
    rocksdb::WriteBatch batch;
    batch.Put(EncodeKey(1, "a"), "not a stat");
    ASSERT_TRUE(store->Write(&batch).ok());
    ASSERT_TRUE(store->Close().ok());
    std::filesystem::remove_all(RankStore(root_, 1));
    std::filesystem::rename(RankStore(root_, 1) + "-bad", RankStore(root_, 1));
  }
  std::vector<std::unique_ptr<Store>> stores;
  for (uint32_t i : {0u, 1u}) stores.push_back(OpenOrigin(i, 2));
  std::string reported;
  int seen = 0;
  try {
    OriginSource source(std::move(stores), 2, [](const std::string& m) { throw std::runtime_error(m); });
    for (; source.Valid(); source.Next()) seen++;
  } catch (const std::runtime_error& e) {
    reported = e.what();
  }
  EXPECT_EQ(seen, 3);  // r0 whole, then the bad entry of r1
  EXPECT_EQ(reported, "source store " + RankStore(root_, 1) + " is corrupt (malformed entry): rerun the write phase");
}

}  // namespace
}  // namespace deltameta
