// Tests client_flags.h: the client job's flags and their defaults, the checks across them,
// the transport --rpc_transport allows, and which command lines need deltameta_client_store.
#include "client/client_flags.h"

#include <gtest/gtest.h>

#include "command_line.h"

namespace deltameta {
namespace {

// Parses `args` into *flags as the client job does; the error ("" if none).
std::string Parse(std::vector<std::string> args, ClientFlags* flags) {
  FlagSet set("deltameta_client", "test");
  RegisterClientFlags(&set, flags);
  CommandLine line("deltameta_client", std::move(args));
  bool help = false;
  const Status s = set.Parse(line.argc(), line.argv(), &help);
  if (!s.ok()) return s.ToString();
  return CheckClientFlags(*flags);
}

TEST(ClientFlagsTest, DefaultsAreTheSeedGuidesRpcClient) {
  ClientFlags f;
  EXPECT_EQ(Parse({}, &f), "");
  EXPECT_EQ(f.n, 1000);
  EXPECT_EQ(f.write_phases, 1);
  EXPECT_EQ(f.read_phases, 0);
  EXPECT_FALSE(f.bk);
  EXPECT_FALSE(f.fs_use_local);
  EXPECT_EQ(f.info_svr_uri, "tcp://127.0.0.1:10086");
  EXPECT_EQ(f.rpc_transport, "auto");
  EXPECT_EQ(f.rpc_timeout, 30);
  EXPECT_TRUE(f.share_dir && f.random_order && f.verify_total && f.cpu_affinity);
}

TEST(ClientFlagsTest, ParsesEveryFlag) {
  ClientFlags f;
  EXPECT_EQ(
      Parse({"--n=5", "--share_dir=0", "--random_order=0", "--write_phases=0", "--read_phases=3", "--fs_use_local=1",
             "--db=/x", "--use_existing_fs=1", "--rpc_transport=tcp", "--rpc_timeout=9", "--verify_total=0",
             "--cpu_affinity=0", "--json=/j", "--skip_fs_checks=1", "--info_svr_uri=tcp://h:1"},
            &f),
      "");
  EXPECT_EQ(f.n, 5);
  EXPECT_FALSE(f.share_dir || f.random_order || f.verify_total || f.cpu_affinity);
  EXPECT_EQ(f.write_phases, 0);
  EXPECT_EQ(f.read_phases, 3);
  EXPECT_TRUE(f.fs_use_local && f.use_existing_fs && f.skip_fs_checks);
  EXPECT_EQ(f.db, "/x");
  EXPECT_EQ(f.rpc_transport, "tcp");
  EXPECT_EQ(f.rpc_timeout, 9);
  EXPECT_EQ(f.json, "/j");
  EXPECT_EQ(f.info_svr_uri, "tcp://h:1");
}

TEST(ClientFlagsTest, RefusesValuesOutOfRange) {
  for (const char* arg : {"--n=0", "--write_phases=2", "--read_phases=101", "--rpc_timeout=0", "--bk=2"}) {
    ClientFlags f;
    EXPECT_NE(Parse({arg}, &f), "") << arg;
  }
}

TEST(ClientFlagsTest, ChecksTheFlagsTogether) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--bk=1", "--fs_use_local=1", "--db=/x"}, "--bk=1 and --fs_use_local=1 exclude each other: pick one design"},
      {{"--bk=1"}, "--db is required with --bk=1 or --fs_use_local=1"},
      {{"--fs_use_local=1"}, "--db is required with --bk=1 or --fs_use_local=1"},
      {{"--write_phases=0"}, "nothing to do: --write_phases=0 and --read_phases=0"},
      {{"--fs_use_local=1", "--db=/x", "--write_phases=0", "--read_phases=1"},
       "--write_phases=0 with --fs_use_local=1 reads an existing store: add --use_existing_fs=1"},
      {{"--bk=1", "--db=/x", "--write_phases=0", "--read_phases=1"}, "--bk=1 needs a write phase"},
      {{"--rpc_transport=udp"}, "--rpc_transport must be auto, unix or tcp"},
  };
  for (const auto& [args, message] : cases) {
    ClientFlags f;
    EXPECT_EQ(Parse(args, &f), message);
  }
  for (std::vector<std::string> ok :
       {std::vector<std::string>{"--bk=1", "--db=/x"},
        {"--fs_use_local=1", "--db=/x", "--read_phases=2"},
        {"--fs_use_local=1", "--db=/x", "--write_phases=0", "--read_phases=1", "--use_existing_fs=1"},
        {"--write_phases=0", "--read_phases=1", "--rpc_transport=unix"}}) {
    ClientFlags f;
    EXPECT_EQ(Parse(ok, &f), "") << ok[0];
  }
}

TEST(ClientFlagsTest, TransportIsTheFastestAllowed) {
  EXPECT_EQ(ClientTransport("auto"), Transport::kShm);
  EXPECT_EQ(ClientTransport("unix"), Transport::kUnix);
  EXPECT_EQ(ClientTransport("tcp"), Transport::kTcp);
}

TEST(ClientFlagsTest, StoreModesAreAskedForByBkOrFsUseLocalOtherThanZero) {
  auto wants = [](std::vector<std::string> args) {
    CommandLine line("deltameta_client", std::move(args));
    return WantsStoreModes(line.argc(), line.argv());
  };
  EXPECT_FALSE(wants({}));
  EXPECT_FALSE(wants({"--n=10", "--read_phases=1"}));
  EXPECT_FALSE(wants({"--bk=0", "--fs_use_local=0"}));
  EXPECT_FALSE(wants({"--db=--bk=1"}));
  EXPECT_TRUE(wants({"--bk=1"}));
  EXPECT_TRUE(wants({"--n=10", "--fs_use_local=1"}));
  EXPECT_TRUE(wants({"--fs_use_local=true"}));
  EXPECT_TRUE(wants({"--bk=x"}));  // deltameta_client_store refuses the value
  CommandLine named_like_a_flag("--bk=1", {});
  EXPECT_FALSE(WantsStoreModes(named_like_a_flag.argc(), named_like_a_flag.argv()));
}

}  // namespace
}  // namespace deltameta
