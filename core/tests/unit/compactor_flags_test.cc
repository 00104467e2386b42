// Tests compactor_flags.h: the compaction job's flags, their defaults and ranges, the seed
// guide's RPC flags accepted and ignored, and the check that both roots are given.
#include "compactor/compactor_flags.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "command_line.h"

namespace deltameta {
namespace {

// Parses `args` into *flags as the compaction job does; the error ("" if none).
std::string Parse(std::vector<std::string> args, CompactorFlags* flags, nlohmann::json* values = nullptr) {
  FlagSet set("deltameta_compactor", "test");
  RegisterCompactorFlags(&set, flags);
  CommandLine line("deltameta_compactor", std::move(args));
  bool help = false;
  const Status s = set.Parse(line.argc(), line.argv(), &help);
  if (!s.ok()) return s.ToString();
  if (values) *values = set.Values();
  return CheckCompactorFlags(*flags);
}

TEST(CompactorFlagsTest, NeedsBothRoots) {
  const std::string required = "--src_dir and --dst_dir are required";
  CompactorFlags f;
  EXPECT_EQ(Parse({}, &f), required);
  EXPECT_EQ(Parse({"--src_dir=/s"}, &f), required);
  CompactorFlags g;
  EXPECT_EQ(Parse({"--dst_dir=/d"}, &g), required);
  CompactorFlags h;
  EXPECT_EQ(Parse({"--src_dir=/s", "--dst_dir=/d"}, &h), "");
  EXPECT_EQ(h.src_dir, "/s");
  EXPECT_EQ(h.dst_dir, "/d");
  EXPECT_FALSE(h.overwrite);
  EXPECT_EQ(h.batch_kb, 128);
}

TEST(CompactorFlagsTest, ParsesItsFlagsAndAcceptsTheSeedGuidesRpcFlags) {
  CompactorFlags f;
  nlohmann::json values;
  EXPECT_EQ(Parse({"--src_dir=/s", "--dst_dir=/d", "--overwrite=1", "--batch_kb=4", "--json=/j", "--rpc_threads=8",
                   "--rpc_timeout=5", "--rpc_batch_min=1"},
                  &f, &values),
            "");
  EXPECT_TRUE(f.overwrite);
  EXPECT_EQ(f.batch_kb, 4);
  EXPECT_EQ(f.json, "/j");
  EXPECT_EQ(values["rpc_threads"], "8");  // recorded as given, otherwise unused
}

TEST(CompactorFlagsTest, RefusesBatchesOutOfRange) {
  for (const char* arg : {"--batch_kb=3", "--batch_kb=1048577"}) {
    CompactorFlags f;
    EXPECT_NE(Parse({"--src_dir=/s", "--dst_dir=/d", arg}, &f), "") << arg;
  }
}

}  // namespace
}  // namespace deltameta
