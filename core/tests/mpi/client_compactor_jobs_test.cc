// The client and compaction jobs (client_job.h, compactor_job.h) run whole, as their tools
// run them, on this job's ranks over local stores in a shared directory: the DeltaFS write
// phase and its read-back, the compaction of its stores into one partition per rank, and
// the stores' layouts checked on every read. The tests are collective: a check that fails
// on some ranks only must not end the test there (the others would wait for it), so they
// use EXPECT, not ASSERT.
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include "../unit/command_line.h"
#include "client/store_backends.h"
#include "deltameta/key.h"
#include "deltameta/layout.h"
#include "deltameta/partition.h"
#include "deltameta/store.h"
#include "jobs/client_job.h"
#include "jobs/compactor_job.h"
#include "jobs/mpi_util.h"
#include "mpi_test.h"

namespace deltameta {
namespace {

constexpr int kFilesPerRank = 300;
const StoreModes kStoreModes{OpenLocalBackend, StartBulkBackend};

int Client(std::vector<std::string> args) {
  CommandLine line("deltameta_client", std::move(args));
  return RunClientJob(TestSession(), line.argc(), line.argv(), &kStoreModes);
}

int Compactor(std::vector<std::string> args) {
  CommandLine line("deltameta_compactor", std::move(args));
  return RunCompactorJob(TestSession(), line.argc(), line.argv());
}

// The JSON Lines documents of `path` (written by rank 0).
std::vector<nlohmann::json> Documents(const std::string& path) {
  std::vector<nlohmann::json> docs;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) docs.push_back(nlohmann::json::parse(line));
  return docs;
}

// Opens this rank's store under `root` read-only, expecting `layout`.
std::unique_ptr<Store> OpenMine(const std::string& root, const StoreLayout& layout) {
  std::unique_ptr<Store> store;
  const Status opened =
      Store::Open(RankStore(root, layout.index), Store::Mode::kReadOnly, StoreOptions(), layout, &store);
  EXPECT_TRUE(opened.ok()) << opened.ToString();
  return store;
}

// Adds the entries of `store` to *held, and those whose name is not of `partition` to *foreign.
void CountPartition(Store* store, const StoreLayout& partition, uint64_t* held, uint64_t* foreign) {
  auto it = store->NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    uint64_t dir;
    std::string_view name;
    EXPECT_TRUE(DecodeKey(std::string_view(it->key().data(), it->key().size()), &dir, &name));
    (*held)++;
    *foreign += PartitionOf(name, partition.count) != partition.index;
  }
}

class JobsTest : public ::testing::Test {
 protected:
  const int rank_ = TestSession().rank();
  const int ranks_ = TestSession().size();
  const uint64_t total_ = static_cast<uint64_t>(kFilesPerRank) * static_cast<uint64_t>(ranks_);
  SharedTempDir dir_;
  const std::string origin_ = dir_.path() + "/origin";
  const std::string n_ = "--n=" + std::to_string(kFilesPerRank);
};

TEST_F(JobsTest, ClientWritesLocalStoresAndReadsThemBack) {
  const std::string json = dir_.path() + "/write.json";
  EXPECT_EQ(Client({"--fs_use_local=1", "--db=" + origin_, n_, "--read_phases=2", "--json=" + json}), 0);
  auto mine = OpenMine(
      origin_, StoreLayout{StoreLayout::Kind::kOrigin, static_cast<uint32_t>(rank_), static_cast<uint32_t>(ranks_)});
  uint64_t entries = 0;
  EXPECT_TRUE(mine && mine->CountEntries(&entries).ok());
  EXPECT_EQ(entries, static_cast<uint64_t>(kFilesPerRank));
  mine.reset();
  if (rank_ == 0) {
    const std::vector<nlohmann::json> docs = Documents(json);
    EXPECT_EQ(docs.size(), 3u);
    for (size_t i = 0; i < docs.size(); i++) {
      EXPECT_EQ(docs[i]["phase"], i == 0 ? "insert" : "lstat");
      EXPECT_EQ(docs[i]["ops"], total_);
      EXPECT_EQ(docs[i]["errors"]["total"], 0);
      EXPECT_EQ(docs[i]["parameters"]["mode"], "local");
      EXPECT_EQ(docs[i]["ranks"], ranks_);
    }
  }
  QuietBarrier(MPI_COMM_WORLD);

  // A later job reads the stores back read-only; the write phase's stores are refused to
  // another one, which would overwrite them.
  const std::vector<std::string> read = {"--fs_use_local=1", "--db=" + origin_, n_,
                                         "--write_phases=0", "--read_phases=1", "--use_existing_fs=1"};
  EXPECT_EQ(Client(read), 0);
  EXPECT_EQ(Client({"--fs_use_local=1", "--db=" + origin_, n_}), 1);
  // More files per rank than were written: every rank misses some, and the job fails
  // through rank 0, which alone counts the errors (a job exits with its worst rank's code).
  std::vector<std::string> more = read;
  more.push_back("--n=" + std::to_string(kFilesPerRank + 10));
  more.erase(more.begin() + 2);
  EXPECT_EQ(Client(more), rank_ == 0 ? 1 : 0);
  EXPECT_EQ(Client({"--fs_use_local=1", n_}), 2);  // no --db
}

TEST_F(JobsTest, CompactorPartitionsTheWritePhasesStores) {
  EXPECT_EQ(Client({"--fs_use_local=1", "--db=" + origin_, n_}), 0);
  const std::string compact = dir_.path() + "/compact", json = dir_.path() + "/compact.json";
  EXPECT_EQ(Compactor({"--src_dir=" + origin_, "--dst_dir=" + compact, "--batch_kb=4", "--json=" + json}), 0);

  // Rank r's store holds exactly the names of partition r, and all ranks' stores all names.
  const StoreLayout partition{StoreLayout::Kind::kPartition, static_cast<uint32_t>(rank_),
                              static_cast<uint32_t>(ranks_)};
  auto mine = OpenMine(compact, partition);
  uint64_t held = 0, foreign = 0, all = 0;
  if (mine) CountPartition(mine.get(), partition, &held, &foreign);
  mine.reset();
  EXPECT_EQ(foreign, 0u);
  QuietReduce(&held, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) {
    EXPECT_EQ(all, total_);
    const std::vector<nlohmann::json> docs = Documents(json);
    EXPECT_EQ(docs.size(), 1u);
    for (const nlohmann::json& doc : docs) {
      EXPECT_EQ(doc["phase"], "compaction");
      EXPECT_EQ(doc["ops"], total_);
      EXPECT_EQ(doc["parameters"]["source_stores"], ranks_);
    }
  }

  // The destination is kept unless --overwrite=1; compacted stores are no source, and no
  // DeltaFS client's stores either.
  EXPECT_EQ(Compactor({"--src_dir=" + origin_, "--dst_dir=" + compact}), 1);
  EXPECT_EQ(Compactor({"--src_dir=" + origin_, "--dst_dir=" + compact, "--overwrite=1"}), 0);
  EXPECT_EQ(Compactor({"--src_dir=" + compact, "--dst_dir=" + dir_.path() + "/again"}), 1);
  EXPECT_EQ(
      Client({"--fs_use_local=1", "--db=" + compact, n_, "--write_phases=0", "--read_phases=1", "--use_existing_fs=1"}),
      1);
  EXPECT_EQ(Compactor({"--src_dir=" + origin_}), 2);
}

}  // namespace
}  // namespace deltameta
