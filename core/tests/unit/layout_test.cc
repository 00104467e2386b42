// Tests layout.h: the store layout marker's round trip, description, and rejection of bad
// markers; the check against an expected layout and its wording; the per-rank store paths.
#include "deltameta/layout.h"

#include <fstream>

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace deltameta {
namespace {

void WriteMarker(const std::string& dir, const std::string& text) {
  std::ofstream(dir + "/" + kLayoutFileName, std::ios::trunc) << text;
}

TEST(LayoutTest, RoundTripAndDescribe) {
  TempDir dir;
  StoreLayout in{StoreLayout::Kind::kOrigin, 2, 3};
  Status s = WriteLayout(dir.location(), in);
  ASSERT_TRUE(s.ok()) << s.ToString();
  StoreLayout out;
  s = ReadLayout(dir.location(), &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out.kind, StoreLayout::Kind::kOrigin);
  EXPECT_EQ(out.index, 2u);
  EXPECT_EQ(out.count, 3u);
  EXPECT_EQ(out.Describe(), "origin store 2 of 3");

  s = WriteLayout(dir.location(), StoreLayout{StoreLayout::Kind::kPartition, 0, 4});
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = ReadLayout(dir.location(), &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out.kind, StoreLayout::Kind::kPartition);
  EXPECT_EQ(out.index, 0u);
  EXPECT_EQ(out.count, 4u);
  EXPECT_EQ(out.Describe(), "partition 0 of 4");
}

TEST(LayoutTest, RejectsMissingMarker) {
  TempDir dir;
  StoreLayout out;
  const Status s = ReadLayout(dir.location(), &out);
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_NE(s.ToString().find(dir.path()), std::string::npos) << s.ToString();
}

TEST(LayoutTest, RejectsMalformedMarkers) {
  TempDir dir;
  for (const char* text :
       {"", "deltameta-store", "deltameta-store 1 partition 0", "other-store 1 partition 0 1\n",
        "deltameta-store 2 partition 0 1\n", "deltameta-store 1 shard 0 1\n", "deltameta-store 1 partition 4 4\n",
        "deltameta-store 1 partition -1 4\n", "deltameta-store 1 partition 0 0\n", "deltameta-store 1 origin 0 x\n"}) {
    WriteMarker(dir.path(), text);
    StoreLayout out;
    const Status s = ReadLayout(dir.location(), &out);
    EXPECT_TRUE(s.IsCorruption()) << "'" << text << "'";
    EXPECT_NE(s.ToString().find("malformed"), std::string::npos) << "'" << text << "': " << s.ToString();
  }
}

// index and count are uint32: a marker beyond that range must not be truncated into a
// different (or zero, i.e. division by zero in PartitionOf) partition count.
TEST(LayoutTest, RejectsIndexOrCountBeyondUint32) {
  TempDir dir;
  for (const char* text :
       {"deltameta-store 1 partition 0 4294967296\n", "deltameta-store 1 partition 4294967296 4294967297\n"}) {
    WriteMarker(dir.path(), text);
    StoreLayout out;
    EXPECT_FALSE(ReadLayout(dir.location(), &out).ok()) << "'" << text << "' read as " << out.Describe();
  }
}

TEST(LayoutTest, CheckAcceptsOnlyTheExpectedLayout) {
  const StoreLayout expected{StoreLayout::Kind::kOrigin, 1, 3};
  EXPECT_TRUE(CheckLayout("/db/r1", expected, expected).ok());
  for (const StoreLayout& found :
       {StoreLayout{StoreLayout::Kind::kPartition, 1, 3}, StoreLayout{StoreLayout::Kind::kOrigin, 0, 3},
        StoreLayout{StoreLayout::Kind::kOrigin, 1, 2}}) {
    SCOPED_TRACE(found.Describe());
    EXPECT_EQ(CheckLayout("/db/r1", found, expected).ToString(),
              "/db/r1 holds " + found.Describe() + ", expected origin store 1 of 3");
  }
}

TEST(LayoutTest, CheckOfAPartitionStoreSpeaksToItsServer) {
  EXPECT_EQ(CheckLayout("/db/r0", StoreLayout{StoreLayout::Kind::kPartition, 0, 2},
                        StoreLayout{StoreLayout::Kind::kPartition, 0, 3})
                .ToString(),
            "/db/r0 holds partition 0 of 2 but this server is rank 0 of 3: start as many server ranks as the store "
            "was written for");
}

TEST(LayoutTest, RankStoresAreNamedAfterTheirRank) {
  EXPECT_EQ(RankStore("/db", 0), "/db/r0");
  EXPECT_EQ(RankStore("rados://pool/run", 12), "rados://pool/run/r12");
  TempDir dir;
  const StorageLocation r3 = RankStore(dir.location(), 3);
  EXPECT_EQ(r3.uri(), dir.path() + "/r3");
  EXPECT_EQ(r3.path(), dir.path() + "/r3");
  EXPECT_EQ(r3.env(), dir.location().env());
}

}  // namespace
}  // namespace deltameta
