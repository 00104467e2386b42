// Tests the DeltaFS local backend: batched creates are readable before commit and all land in the store.
#include <gtest/gtest.h>

#include "client/store_backends.h"
#include "client/workload.h"
#include "temp_dir.h"

namespace deltameta {
namespace {

class LocalBackendTest : public ::testing::TestWithParam<size_t> {
 protected:
  std::unique_ptr<ClientBackend> NewBackend(bool write_only) {
    StoreOptions options;
    options.write_only = write_only;
    std::unique_ptr<Store> store;
    const Status opened = Store::Open(dir_.path() + "/r0", Store::Mode::kCreate, options,
                                      StoreLayout{StoreLayout::Kind::kOrigin, 0, 1}, &store);
    EXPECT_TRUE(opened.ok()) << opened.ToString();
    return NewLocalBackend(std::move(store), GetParam());
  }

  uint64_t CountAfterReopen() {
    std::unique_ptr<Store> store;
    const Status opened = Store::Open(dir_.path() + "/r0", Store::Mode::kReadOnly, StoreOptions(),
                                      StoreLayout{StoreLayout::Kind::kOrigin, 0, 1}, &store);
    EXPECT_TRUE(opened.ok()) << opened.ToString();
    uint64_t entries = 0;
    if (store) {
      EXPECT_TRUE(store->CountEntries(&entries).ok());
    }
    return entries;
  }

  TempDir dir_;
  Workload work_{0, 1, 1000, true, false};
};

TEST_P(LocalBackendTest, CreatesAreReadableBeforeCommitAndDurableAfter) {
  for (bool write_only : {false, true}) {
    SCOPED_TRACE(write_only);
    auto backend = NewBackend(write_only);
    std::string error;
    OpStatus status;
    for (uint64_t i = 0; i < work_.files_per_rank; i++) {
      ASSERT_TRUE(backend->Create(work_.DirId(), work_.FileName(i), work_.StatFor(i, 7), &status, &error)) << error;
      ASSERT_EQ(status, OpStatus::kOk);
    }
    FileStat got;
    ASSERT_TRUE(backend->Lstat(work_.DirId(), work_.FileName(999), &got, &status, &error)) << error;
    EXPECT_EQ(status, OpStatus::kOk);
    EXPECT_TRUE(MatchesExpected(got, work_.StatFor(999, 0)));
    ASSERT_TRUE(backend->Lstat(work_.DirId(), "absent", &got, &status, &error)) << error;
    EXPECT_EQ(status, OpStatus::kNotFound);
    ASSERT_TRUE(backend->Commit(&error)) << error;
    backend.reset();
    EXPECT_EQ(CountAfterReopen(), work_.files_per_rank);
    std::filesystem::remove_all(dir_.path() + "/r0");
  }
}

INSTANTIATE_TEST_SUITE_P(BatchSizes, LocalBackendTest, ::testing::Values(size_t{0}, size_t{4096}, size_t{64} << 10));

}  // namespace
}  // namespace deltameta
