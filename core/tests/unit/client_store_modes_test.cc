// Tests the set-up of the client's store-backed modes (store_backends.h): the DeltaFS
// local store of a rank, written and then read back by as many ranks and refused to
// others; the bulk mode's table directory; the memtable size the write phase reserves for.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "client/store_backends.h"
#include "temp_dir.h"

namespace deltameta {
namespace {

class ClientStoreModesTest : public ::testing::Test {
 protected:
  ClientStoreModesTest() {
    flags_.fs_use_local = true;
    flags_.db = dir_.path() + "/origin";
  }

  Workload RankOf(uint32_t rank, uint32_t ranks) {
    Workload w;
    w.rank = rank;
    w.num_ranks = ranks;
    w.files_per_rank = 50;
    return w;
  }

  // Creates work.files_per_rank entries through the rank's local backend and commits them.
  void Write(const Workload& work) {
    std::string error;
    auto backend = OpenLocalBackend(flags_, work, StoreOptions(), &error);
    ASSERT_NE(backend, nullptr) << error;
    OpStatus status;
    for (uint64_t i = 0; i < work.files_per_rank; i++) {
      ASSERT_TRUE(backend->Create(work.DirId(), work.FileName(i), work.StatFor(i, 1), &status, &error)) << error;
      ASSERT_EQ(status, OpStatus::kOk);
    }
    ASSERT_TRUE(backend->Commit(&error)) << error;
  }

  TempDir dir_;
  ClientFlags flags_;
};

TEST_F(ClientStoreModesTest, EachRankWritesItsOwnOriginStore) {
  for (uint32_t r = 0; r < 2; r++) Write(RankOf(r, 2));
  StorageLocation root;
  const Status resolved = StorageLocation::Resolve(flags_.db, &root);
  ASSERT_TRUE(resolved.ok()) << resolved.ToString();
  for (uint32_t r = 0; r < 2; r++) {
    StoreLayout layout;
    const Status s = ReadLayout(RankStore(root, r), &layout);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(layout.Describe(), "origin store " + std::to_string(r) + " of 2");
  }
}

TEST_F(ClientStoreModesTest, ReadsBackWithAsManyRanks) {
  const Workload work = RankOf(1, 2);
  Write(work);
  flags_.use_existing_fs = true;
  std::string error;
  auto backend = OpenLocalBackend(flags_, work, StoreOptions(), &error);
  ASSERT_NE(backend, nullptr) << error;
  FileStat got;
  OpStatus status;
  ASSERT_TRUE(backend->Lstat(work.DirId(), work.FileName(7), &got, &status, &error)) << error;
  EXPECT_EQ(status, OpStatus::kOk);
  EXPECT_TRUE(MatchesExpected(got, work.StatFor(7, 0)));
  uint64_t entries = 0;
  ASSERT_TRUE(backend->LocalEntries(&entries, &error)) << error;
  EXPECT_EQ(entries, work.files_per_rank);
}

TEST_F(ClientStoreModesTest, RefusesToReadWithAnotherRankCount) {
  Write(RankOf(0, 2));
  flags_.use_existing_fs = true;
  std::string error;
  EXPECT_EQ(OpenLocalBackend(flags_, RankOf(0, 3), StoreOptions(), &error), nullptr);
  EXPECT_EQ(error, flags_.db + "/r0 holds origin store 0 of 2, expected origin store 0 of 3");
}

TEST_F(ClientStoreModesTest, RefusesAMissingStoreAndOverwritingOne) {
  std::string error;
  flags_.use_existing_fs = true;
  EXPECT_EQ(OpenLocalBackend(flags_, RankOf(0, 1), StoreOptions(), &error), nullptr);
  EXPECT_NE(error.find("no store at " + flags_.db + "/r0"), std::string::npos) << error;
  flags_.use_existing_fs = false;
  Write(RankOf(0, 1));
  EXPECT_EQ(OpenLocalBackend(flags_, RankOf(0, 1), StoreOptions(), &error), nullptr);
  EXPECT_NE(error.find("a store already exists at " + flags_.db + "/r0"), std::string::npos) << error;
}

TEST_F(ClientStoreModesTest, BulkModeNeedsATableDirectoryItCanCreate) {
  std::ofstream(dir_.path() + "/file") << "x";
  flags_.fs_use_local = false;
  flags_.bk = true;
  flags_.db = dir_.path() + "/file";
  std::string error;
  EXPECT_EQ(StartBulkBackend(flags_, RankOf(0, 1), nullptr, StoreOptions(), &error), nullptr);
  EXPECT_EQ(error.find("cannot create the bulk-insertion table directory " + dir_.path() + "/file/r0: "), 0u) << error;
}

TEST(MemtableEntriesTest, CoversTheMemtableItsSlackAndOneLogBuffer) {
  StoreOptions o;
  o.memtable_size = 8 << 20;
  o.write_ahead_log_buffer = 64 << 10;
  EXPECT_EQ(MemtableEntries(o), (uint64_t{8 << 20} + (1 << 20) + (64 << 10)) / 24 + 1);
  o.write_ahead_log_buffer = 0;
  o.memtable_size = 24;
  EXPECT_EQ(MemtableEntries(o), 2u);  // 27 bytes: one whole entry, plus one
}

}  // namespace
}  // namespace deltameta
