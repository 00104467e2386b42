// Tests server_flags.h: the server job's flags, their defaults and ranges, the store
// settings they decide for writing and read-only servers, and the ready file.
#include "server/server_flags.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "command_line.h"
#include "temp_dir.h"

namespace deltameta {
namespace {

// Parses `args` into *flags as the server job does; the error ("" if none).
std::string Parse(std::vector<std::string> args, ServerFlags* flags) {
  FlagSet set("deltameta_server", "test");
  RegisterServerFlags(&set, flags);
  CommandLine line("deltameta_server", std::move(args));
  bool help = false;
  const Status s = set.Parse(line.argc(), line.argv(), &help);
  if (!s.ok()) return s.ToString();
  return CheckServerFlags(*flags);
}

TEST(ServerFlagsTest, NeedsTheStoreRoot) {
  ServerFlags f;
  EXPECT_EQ(Parse({}, &f), "--db is required (the store root directory)");
  ServerFlags g;
  EXPECT_EQ(Parse({"--db=/d"}, &g), "");
  EXPECT_EQ(g.db, "/d");
  EXPECT_EQ(g.ports_per_rank, 1);
  EXPECT_EQ(g.rpc_threads, 2);
  EXPECT_EQ(g.rpc_ip, "127.0.0.1");
  EXPECT_EQ(g.info_port, 10086);
  EXPECT_EQ(g.frame_timeout, 10);
  EXPECT_EQ(g.idle_timeout, 1800);
  EXPECT_EQ(g.conn_buffer_mb, 64);
  EXPECT_EQ(g.wal_flush_ms, 100);
  EXPECT_EQ(g.inline_data_max, kMaxInlineDataBytes);
  EXPECT_FALSE(g.use_existing_fs || g.skip_fs_checks || g.wal_sync);
  EXPECT_TRUE(g.cpu_affinity);
}

TEST(ServerFlagsTest, ParsesEveryFlag) {
  ServerFlags f;
  EXPECT_EQ(Parse({"--db=/d", "--use_existing_fs=1", "--skip_fs_checks=1", "--ports_per_rank=3", "--rpc_threads=4",
                   "--rpc_ip=host", "--info_port=0", "--ready_file=/r", "--cpu_affinity=0", "--frame_timeout=2",
                   "--idle_timeout=0", "--conn_buffer_mb=1", "--wal_flush_ms=0", "--wal_sync=1", "--inline_data_max=0"},
                  &f),
            "");
  EXPECT_TRUE(f.use_existing_fs && f.skip_fs_checks && f.wal_sync);
  EXPECT_FALSE(f.cpu_affinity);
  EXPECT_EQ(f.ports_per_rank, 3);
  EXPECT_EQ(f.rpc_threads, 4);
  EXPECT_EQ(f.rpc_ip, "host");
  EXPECT_EQ(f.info_port, 0);
  EXPECT_EQ(f.ready_file, "/r");
  EXPECT_EQ(f.frame_timeout, 2);
  EXPECT_EQ(f.idle_timeout, 0);
  EXPECT_EQ(f.conn_buffer_mb, 1);
  EXPECT_EQ(f.wal_flush_ms, 0);
  EXPECT_EQ(f.inline_data_max, 0);
}

TEST(ServerFlagsTest, RefusesValuesOutOfRange) {
  for (const char* arg : {"--ports_per_rank=0", "--ports_per_rank=17", "--rpc_threads=65", "--info_port=65536",
                          "--frame_timeout=0", "--idle_timeout=-1", "--conn_buffer_mb=4097", "--wal_flush_ms=60001",
                          "--inline_data_max=-1", "--inline_data_max=65480"}) {
    ServerFlags f;
    EXPECT_NE(Parse({"--db=/d", arg}, &f), "") << arg;
  }
}

TEST(ServerFlagsTest, AWritingServerChecksCreatesAndKeepsSpace) {
  ServerFlags f;
  f.wal_flush_ms = 250;
  StoreOptions o;
  ApplyServerFlags(f, &o);
  EXPECT_TRUE(o.checked_creates);
  EXPECT_FALSE(o.disable_write_ahead_logging);
  EXPECT_EQ(o.wal_flush_ms, 250);
  EXPECT_FALSE(o.wal_sync);
  EXPECT_EQ(o.space_reserve, o.SpaceReserve());
  EXPECT_GT(o.space_reserve, 0);

  f.skip_fs_checks = true;
  f.wal_sync = true;
  StoreOptions blind;
  ApplyServerFlags(f, &blind);
  EXPECT_FALSE(blind.checked_creates);
  EXPECT_TRUE(blind.wal_sync);
}

TEST(ServerFlagsTest, AReadOnlyServerWritesNoLogAndKeepsNoSpace) {
  ServerFlags f;
  f.use_existing_fs = true;
  StoreOptions o;
  ApplyServerFlags(f, &o);
  EXPECT_TRUE(o.disable_write_ahead_logging);
  EXPECT_FALSE(o.checked_creates);
  EXPECT_EQ(o.space_reserve, 0);
  EXPECT_EQ(o.wal_flush_ms, 100);
}

TEST(ServerFlagsTest, TheReadyFileAppearsWhole) {
  TempDir dir;
  const std::string path = dir.path() + "/ready";
  std::string error;
  ASSERT_TRUE(WriteReadyFile(path, "tcp://127.0.0.1:5\n", &error)) << error;
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  EXPECT_EQ(text.str(), "tcp://127.0.0.1:5\n");
  struct stat st;
  EXPECT_NE(stat((path + ".tmp").c_str(), &st), 0);  // renamed, not copied

  const std::string nowhere = dir.path() + "/no-such-dir/ready";
  EXPECT_FALSE(WriteReadyFile(nowhere, "x", &error));
  EXPECT_EQ(error, "cannot write --ready_file " + nowhere);
}

}  // namespace
}  // namespace deltameta
