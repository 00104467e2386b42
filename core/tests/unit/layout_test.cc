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
  std::string error;
  StoreLayout in{StoreLayout::Kind::kOrigin, 2, 3};
  ASSERT_TRUE(WriteLayout(dir.location(), in, &error)) << error;
  StoreLayout out;
  ASSERT_TRUE(ReadLayout(dir.location(), &out, &error)) << error;
  EXPECT_EQ(out.kind, StoreLayout::Kind::kOrigin);
  EXPECT_EQ(out.index, 2u);
  EXPECT_EQ(out.count, 3u);
  EXPECT_EQ(out.Describe(), "origin store 2 of 3");

  ASSERT_TRUE(WriteLayout(dir.location(), StoreLayout{StoreLayout::Kind::kPartition, 0, 4}, &error)) << error;
  ASSERT_TRUE(ReadLayout(dir.location(), &out, &error)) << error;
  EXPECT_EQ(out.kind, StoreLayout::Kind::kPartition);
  EXPECT_EQ(out.index, 0u);
  EXPECT_EQ(out.count, 4u);
  EXPECT_EQ(out.Describe(), "partition 0 of 4");
}

TEST(LayoutTest, RejectsMissingMarker) {
  TempDir dir;
  StoreLayout out;
  std::string error;
  EXPECT_FALSE(ReadLayout(dir.location(), &out, &error));
  EXPECT_NE(error.find(dir.path()), std::string::npos) << error;
}

TEST(LayoutTest, RejectsMalformedMarkers) {
  TempDir dir;
  for (const char* text :
       {"", "deltameta-store", "deltameta-store 1 partition 0", "other-store 1 partition 0 1\n",
        "deltameta-store 2 partition 0 1\n", "deltameta-store 1 shard 0 1\n", "deltameta-store 1 partition 4 4\n",
        "deltameta-store 1 partition -1 4\n", "deltameta-store 1 partition 0 0\n", "deltameta-store 1 origin 0 x\n"}) {
    WriteMarker(dir.path(), text);
    StoreLayout out;
    std::string error;
    EXPECT_FALSE(ReadLayout(dir.location(), &out, &error)) << "'" << text << "'";
    EXPECT_NE(error.find("malformed"), std::string::npos) << "'" << text << "': " << error;
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
    std::string error;
    EXPECT_FALSE(ReadLayout(dir.location(), &out, &error)) << "'" << text << "' read as " << out.Describe();
  }
}

TEST(LayoutTest, CheckAcceptsOnlyTheExpectedLayout) {
  const StoreLayout expected{StoreLayout::Kind::kOrigin, 1, 3};
  std::string error;
  EXPECT_TRUE(CheckLayout("/db/r1", expected, expected, &error));
  EXPECT_EQ(error, "");
  for (const StoreLayout& found :
       {StoreLayout{StoreLayout::Kind::kPartition, 1, 3}, StoreLayout{StoreLayout::Kind::kOrigin, 0, 3},
        StoreLayout{StoreLayout::Kind::kOrigin, 1, 2}}) {
    SCOPED_TRACE(found.Describe());
    EXPECT_FALSE(CheckLayout("/db/r1", found, expected, &error));
    EXPECT_EQ(error, "/db/r1 holds " + found.Describe() + ", expected origin store 1 of 3");
  }
}

TEST(LayoutTest, CheckOfAPartitionStoreSpeaksToItsServer) {
  std::string error;
  EXPECT_FALSE(CheckLayout("/db/r0", StoreLayout{StoreLayout::Kind::kPartition, 0, 2},
                           StoreLayout{StoreLayout::Kind::kPartition, 0, 3}, &error));
  EXPECT_EQ(error,
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
