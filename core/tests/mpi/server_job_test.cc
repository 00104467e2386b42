// The server job's start-up (server_job.h) on this job's ranks: the address exchange, a
// whole start that clients reach through the info endpoint until SIGTERM stops it, and
// failed starts, which leave no store behind. The tests are collective: a check that fails
// on some ranks only must not end the test there (the others would wait for it), so the
// checks before a collective call use EXPECT, not ASSERT.
#include "jobs/server_job.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <mpi.h>

#include "../unit/command_line.h"
#include "client/client_backend.h"
#include "deltameta/key.h"
#include "deltameta/layout.h"
#include "deltameta/store.h"
#include "jobs/mpi_util.h"
#include "mpi_test.h"

namespace deltameta {
namespace {

int Server(std::vector<std::string> args) {
  CommandLine line("deltameta_server", std::move(args));
  return RunServerJob(TestSession(), line.argc(), line.argv());
}

// Waits up to a minute for `path` to exist; its first line, or "" if it never came.
std::string AwaitFile(const std::string& path) {
  for (int i = 0; i < 6000 && !std::filesystem::exists(path); i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::string line;
  std::getline(std::ifstream(path), line);
  return line;
}

class ServerJobTest : public ::testing::Test {
 protected:
  ServerJobTest() { setenv("DELTAMETA_SECRET_FILE", (dir_.path() + "/secret").c_str(), 1); }

  const int rank_ = TestSession().rank();
  const int ranks_ = TestSession().size();
  SharedTempDir dir_;
  const std::string db_ = dir_.path() + "/db";
};

TEST_F(ServerJobTest, ExchangeGivesEveryRankEveryAddressInRankOrder) {
  const std::string r = std::to_string(rank_);
  const std::vector<std::string> all =
      ExchangeAddresses({"10.0." + r + ".1:1000" + r, "10.0." + r + ".2:2000" + r}, MPI_COMM_WORLD);
  EXPECT_EQ(all.size(), 2u * static_cast<size_t>(ranks_));
  for (int i = 0; 2 * i + 1 < static_cast<int>(all.size()); i++) {
    const std::string s = std::to_string(i);
    EXPECT_EQ(all[2 * i], "10.0." + s + ".1:1000" + s);
    EXPECT_EQ(all[2 * i + 1], "10.0." + s + ".2:2000" + s);
  }
  const std::string long_name(100, static_cast<char>('a' + rank_));
  const std::vector<std::string> cut = ExchangeAddresses({long_name}, MPI_COMM_WORLD);
  ASSERT_EQ(cut.size(), static_cast<size_t>(ranks_));
  for (int i = 0; i < ranks_; i++) EXPECT_EQ(cut[i], std::string(kAddressSlot - 1, static_cast<char>('a' + i)));
}

TEST_F(ServerJobTest, StartsListensOnEveryRankAndStopsOnSigterm) {
  const std::string ready = dir_.path() + "/ready", done = dir_.path() + "/done";
  // Rank 0 connects as clients 0 and 1 (port 0 and port 1 of every rank) once the job is
  // ready, then every rank stops its server as SIGINT or SIGTERM would.
  std::set<std::string> addresses;
  size_t servers[2] = {0, 0};
  std::string error;
  std::thread client([&] {
    if (rank_ == 0) {
      const std::string uri = AwaitFile(ready);
      for (int c = 0; c < 2; c++) {
        auto set = ServerSet::Connect(uri, c, std::chrono::seconds(20), Transport::kTcp, &error);
        if (!set) break;
        servers[c] = set->size();
        for (const std::string& a : set->addresses()) addresses.insert(a);
      }
      std::ofstream(done) << "done\n";
    } else {
      AwaitFile(done);
    }
    kill(getpid(), SIGTERM);
  });
  const int exit_code = Server({"--db=" + db_, "--info_port=0", "--ready_file=" + ready, "--ports_per_rank=2",
                                "--rpc_threads=1", "--cpu_affinity=0"});
  client.join();
  EXPECT_EQ(exit_code, 0);
  // The store stays: partition r of the job's ranks.
  StoreLayout layout;
  StorageLocation mine;
  Status s = StorageLocation::Resolve(RankStore(db_, static_cast<uint32_t>(rank_)), &mine);
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = ReadLayout(mine, &layout);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(layout.Describe(), "partition " + std::to_string(rank_) + " of " + std::to_string(ranks_));
  if (rank_ == 0) {
    EXPECT_FALSE(std::filesystem::exists(ready));  // rank 0 removes it at exit
    EXPECT_EQ(error, "");
    EXPECT_EQ(servers[0], static_cast<size_t>(ranks_));
    EXPECT_EQ(servers[1], static_cast<size_t>(ranks_));
    EXPECT_EQ(addresses.size(), 2u * static_cast<size_t>(ranks_));  // every port of every rank
  }
}

TEST_F(ServerJobTest, AFailedStartRemovesTheStoresItCreated) {
  // Rank 0's info port is taken: every rank has made its store by then.
  int taken = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = 0;
  if (rank_ == 0) {
    EXPECT_EQ(bind(taken, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(listen(taken, 1), 0);
    EXPECT_EQ(getsockname(taken, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    port = ntohs(addr.sin_port);
  }
  MPI_Bcast(&port, 1, MPI_INT, 0, MPI_COMM_WORLD);
  EXPECT_EQ(Server({"--db=" + db_, "--info_port=" + std::to_string(port), "--cpu_affinity=0"}), 1);
  close(taken);
  QuietBarrier(MPI_COMM_WORLD);
  EXPECT_FALSE(std::filesystem::exists(RankStore(db_, static_cast<uint32_t>(rank_))));
  EXPECT_EQ(Server({}), 2);  // no --db
}

TEST_F(ServerJobTest, AReadOnlyStartNeedsStoresOfItsRankCount) {
  // Stores written for one rank more than this job has.
  const StoreLayout other{StoreLayout::Kind::kPartition, static_cast<uint32_t>(rank_),
                          static_cast<uint32_t>(ranks_) + 1};
  std::unique_ptr<Store> store;
  const Status opened = Store::Open(RankStore(db_, other.index), Store::Mode::kCreate, StoreOptions(), other, &store);
  EXPECT_TRUE(opened.ok()) << opened.ToString();
  FileStat stat;
  stat.ino = 1;
  EXPECT_TRUE(store && store->Put(EncodeKey(1, "f"), stat).ok() && store->Close().ok());
  store.reset();
  EXPECT_EQ(Server({"--db=" + db_, "--use_existing_fs=1", "--info_port=0", "--cpu_affinity=0"}), 1);
  EXPECT_TRUE(std::filesystem::exists(RankStore(db_, other.index)));  // not this job's to remove
  EXPECT_EQ(Server({"--db=" + dir_.path() + "/none", "--use_existing_fs=1", "--info_port=0"}), 1);
}

}  // namespace
}  // namespace deltameta
