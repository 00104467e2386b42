// Tests store.h: create and read-only opens, their failures (a store of another layout
// among them, and a storage location that cannot be listed), persistence, and that a
// read-only open never modifies the store directory.
#include "deltameta/store.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <tuple>

#include <gtest/gtest.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>

#include "deltameta/key.h"
#include "deltameta/storage.h"
#include "temp_dir.h"

namespace deltameta {
namespace fs = std::filesystem;
namespace {

FileStat StatOf(int i) {
  FileStat s;
  s.ino = static_cast<uint64_t>(i) + 1;
  s.mode = 0100644;
  s.uid = 1000;
  s.gid = 1000 + i % 7;
  s.size = static_cast<uint64_t>(i) * 3;
  s.mtime_us = 1700000000000000 + i;
  s.ctime_us = 1700000000000000 + i;
  return s;
}

std::string KeyOf(int i) { return EncodeKey(1, "f0." + std::to_string(i)); }

// Every file and directory under `dir` with its size (files) and modification time.
std::map<std::string, std::tuple<uintmax_t, fs::file_time_type>> Snapshot(const std::string& dir) {
  std::map<std::string, std::tuple<uintmax_t, fs::file_time_type>> files;
  files[dir] = {0, fs::last_write_time(dir)};
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    files[e.path().string()] = {e.is_regular_file() ? e.file_size() : 0, e.last_write_time()};
  }
  return files;
}

class StoreTest : public ::testing::Test {
 protected:
  // Opens the store at path_ with `layout`; on failure, nullptr and the failure's text in error_.
  std::unique_ptr<Store> Open(Store::Mode mode, const StoreLayout& layout) {
    std::unique_ptr<Store> store;
    const Status s = Store::Open(path_, mode, StoreOptions(), layout, &store);
    EXPECT_EQ(s.ok(), store != nullptr);
    error_ = s.ok() ? "" : s.ToString();
    return store;
  }
  std::unique_ptr<Store> Open(Store::Mode mode) { return Open(mode, layout_); }

  // Creates the store holding entries [0, n) and closes it.
  void CreateWith(int n) {
    auto store = Open(Store::Mode::kCreate);
    ASSERT_NE(store, nullptr) << error_;
    for (int i = 0; i < n; i++) ASSERT_TRUE(store->Put(KeyOf(i), StatOf(i)).ok());
    ASSERT_TRUE(store->Close().ok());
  }

  TempDir dir_;
  const std::string path_ = dir_.path() + "/store";
  const StoreLayout layout_{StoreLayout::Kind::kOrigin, 2, 4};
  std::string error_;
};

TEST_F(StoreTest, CreateWritesLayoutMarker) {
  auto store = Open(Store::Mode::kCreate);
  ASSERT_NE(store, nullptr) << error_;
  EXPECT_FALSE(store->read_only());
  EXPECT_EQ(store->location().uri(), path_);
  StoreLayout read;
  const Status s = ReadLayout(store->location(), &read);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(read.Describe(), layout_.Describe());
  EXPECT_EQ(read.kind, layout_.kind);
  bool has = false;
  ASSERT_TRUE(store->location().HasEntries(&has).ok());
  EXPECT_TRUE(has);
}

TEST_F(StoreTest, CreateRefusesNonEmptyDirectory) {
  fs::create_directories(path_);
  std::ofstream(path_ + "/unrelated") << "keep me";
  EXPECT_EQ(Open(Store::Mode::kCreate), nullptr);
  EXPECT_NE(error_.find("--use_existing_fs"), std::string::npos) << error_;
  EXPECT_NE(error_.find(path_), std::string::npos) << error_;
  EXPECT_TRUE(fs::exists(path_ + "/unrelated"));
  fs::remove(path_ + "/unrelated");

  CreateWith(1);
  EXPECT_EQ(Open(Store::Mode::kCreate), nullptr);
  EXPECT_NE(error_.find("--use_existing_fs"), std::string::npos) << error_;
}

TEST_F(StoreTest, HasEntriesTellsNothingAndAFileFromEntries) {
  StorageLocation where;
  ASSERT_TRUE(StorageLocation::Resolve(path_, &where).ok());
  bool has = true;
  ASSERT_TRUE(where.HasEntries(&has).ok());
  EXPECT_FALSE(has);
  std::ofstream(path_) << "a file";
  has = true;
  ASSERT_TRUE(where.HasEntries(&has).ok());
  EXPECT_FALSE(has);
}

// A listing that fails (here, for root too: the store's parent is a regular file) is
// reported, never read as an empty directory to create the store in.
TEST_F(StoreTest, CreateReportsAListingThatFails) {
  std::ofstream(path_) << "a file";
  StorageLocation where;
  ASSERT_TRUE(StorageLocation::Resolve(path_ + "/db", &where).ok());
  bool has = false;
  const Status s = where.HasEntries(&has);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.ToString().rfind("cannot list " + path_ + "/db: ", 0), 0u) << s.ToString();

  std::unique_ptr<Store> store;
  const Status created = Store::Open(path_ + "/db", Store::Mode::kCreate, StoreOptions(), layout_, &store);
  EXPECT_EQ(store, nullptr);
  EXPECT_EQ(created.ToString().rfind("cannot create a store: cannot list " + path_ + "/db: ", 0), 0u)
      << created.ToString();
}

TEST_F(StoreTest, ReadOnlyRefusesMissingAndEmptyStores) {
  EXPECT_EQ(Open(Store::Mode::kReadOnly), nullptr);
  EXPECT_NE(error_.find(path_), std::string::npos) << error_;
  EXPECT_FALSE(fs::exists(path_));

  CreateWith(0);
  EXPECT_EQ(Open(Store::Mode::kReadOnly), nullptr);
  EXPECT_NE(error_.find("empty"), std::string::npos) << error_;
}

TEST_F(StoreTest, WritesPersistAcrossReopen) {
  constexpr int kEntries = 2000;
  {
    auto store = Open(Store::Mode::kCreate);
    ASSERT_NE(store, nullptr) << error_;
    for (int i = 0; i < kEntries / 2; i++) ASSERT_TRUE(store->Put(KeyOf(i), StatOf(i)).ok());
    ASSERT_TRUE(store->Flush().ok());
    for (int i = kEntries / 2; i < kEntries; i++) ASSERT_TRUE(store->Put(KeyOf(i), StatOf(i)).ok());
    std::string value;
    ASSERT_TRUE(store->Get(KeyOf(7), &value).ok());
    FileStat got;
    ASSERT_TRUE(DecodeStat(value, &got));
    EXPECT_EQ(got, StatOf(7));
    EXPECT_TRUE(store->Get(KeyOf(kEntries), &value).IsNotFound());
    ASSERT_TRUE(store->Close().ok());  // no explicit Flush of the second half
  }
  auto store = Open(Store::Mode::kReadOnly);
  ASSERT_NE(store, nullptr) << error_;
  EXPECT_TRUE(store->read_only());
  EXPECT_EQ(store->layout().Describe(), layout_.Describe());
  uint64_t entries = 0;
  ASSERT_TRUE(store->CountEntries(&entries).ok());
  EXPECT_EQ(entries, static_cast<uint64_t>(kEntries));
  for (int i = 0; i < kEntries; i++) {
    std::string value;
    ASSERT_TRUE(store->Get(KeyOf(i), &value).ok()) << i;
    FileStat got;
    ASSERT_TRUE(DecodeStat(value, &got)) << i;
    EXPECT_EQ(got, StatOf(i)) << i;
  }
  EXPECT_FALSE(store->Put(KeyOf(kEntries), StatOf(kEntries)).ok());
}

// With checked_creates the memtable's Bloom filter answers for names it does not hold, so
// checking a new name skips the memtable's index; names it holds are still found.
TEST_F(StoreTest, CheckedCreatesLookUpNewNamesInTheMemtableFilter) {
  constexpr int kEntries = 1000;
  for (bool checked : {false, true}) {
    StoreOptions options;
    options.checked_creates = checked;
    fs::remove_all(path_);
    std::unique_ptr<Store> store;
    const Status opened = Store::Open(path_, Store::Mode::kCreate, options, layout_, &store);
    ASSERT_TRUE(opened.ok()) << opened.ToString();
    for (int i = 0; i < kEntries; i++) ASSERT_TRUE(store->Put(KeyOf(i), StatOf(i)).ok());
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
    rocksdb::get_perf_context()->Reset();
    std::string value;
    for (int i = kEntries; i < 2 * kEntries; i++) ASSERT_TRUE(store->Get(KeyOf(i), &value).IsNotFound()) << i;
    const uint64_t skipped = rocksdb::get_perf_context()->bloom_memtable_miss_count;
    for (int i = 0; i < kEntries; i++) {
      ASSERT_TRUE(store->Get(KeyOf(i), &value).ok()) << i;
      FileStat got;
      ASSERT_TRUE(DecodeStat(value, &got)) << i;
      EXPECT_EQ(got, StatOf(i)) << i;
    }
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
    if (checked) {
      EXPECT_GE(skipped, uint64_t{kEntries * 95 / 100});  // false positives are rare
    } else {
      EXPECT_EQ(skipped, 0u);
    }
    ASSERT_TRUE(store->Close().ok());
  }
}

TEST_F(StoreTest, CloseWritesTheMemtableAsATable) {
  CreateWith(100);
  int tables = 0;
  for (const auto& e : fs::directory_iterator(path_)) tables += e.path().extension() == ".sst";
  EXPECT_GE(tables, 1);
}

TEST_F(StoreTest, ReadOnlyOpenNeverChangesTheDirectory) {
  CreateWith(500);
  const auto before = Snapshot(path_);
  {
    auto store = Open(Store::Mode::kReadOnly);
    ASSERT_NE(store, nullptr) << error_;
    std::string value;
    for (int i = 0; i < 600; i++) store->Get(KeyOf(i), &value);
    uint64_t entries = 0;
    ASSERT_TRUE(store->CountEntries(&entries).ok());
    EXPECT_EQ(entries, 500u);
    EXPECT_FALSE(store->Put(KeyOf(1000), StatOf(1000)).ok());
    EXPECT_TRUE(store->Close().ok());
  }
  EXPECT_EQ(Snapshot(path_), before);
}

TEST_F(StoreTest, ReadOnlyRejectsMalformedLayout) {
  CreateWith(10);
  std::ofstream(path_ + "/" + kLayoutFileName, std::ios::trunc) << "deltameta-store 1 partition 5 4\n";
  EXPECT_EQ(Open(Store::Mode::kReadOnly), nullptr);
  EXPECT_NE(error_.find("malformed"), std::string::npos) << error_;
  fs::remove(path_ + "/" + kLayoutFileName);
  EXPECT_EQ(Open(Store::Mode::kReadOnly), nullptr);
  EXPECT_NE(error_.find(kLayoutFileName), std::string::npos) << error_;
}

TEST_F(StoreTest, ReadOnlyRefusesAnotherLayout) {
  CreateWith(10);
  const StoreLayout others[] = {
      {StoreLayout::Kind::kOrigin, 1, 4}, {StoreLayout::Kind::kOrigin, 2, 3}, {StoreLayout::Kind::kPartition, 2, 4}};
  for (const StoreLayout& other : others) {
    SCOPED_TRACE(other.Describe());
    EXPECT_EQ(Open(Store::Mode::kReadOnly, other), nullptr);
    EXPECT_EQ(error_.find(path_ + " holds origin store 2 of 4"), 0u) << error_;
  }
  auto store = Open(Store::Mode::kReadOnly);  // refused opens left it as it was
  ASSERT_NE(store, nullptr) << error_;
  EXPECT_EQ(store->layout().Describe(), layout_.Describe());
}

}  // namespace
}  // namespace deltameta
