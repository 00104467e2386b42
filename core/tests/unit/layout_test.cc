// Tests layout.h: the store layout marker's round trip, description, and rejection of bad markers.
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
  for (const char* text : {"", "deltameta-store", "deltameta-store 1 partition 0", "other-store 1 partition 0 1\n",
                           "deltameta-store 2 partition 0 1\n", "deltameta-store 1 shard 0 1\n",
                           "deltameta-store 1 partition 4 4\n", "deltameta-store 1 partition -1 4\n",
                           "deltameta-store 1 partition 0 0\n", "deltameta-store 1 origin 0 x\n"}) {
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
  for (const char* text : {"deltameta-store 1 partition 0 4294967296\n",
                           "deltameta-store 1 partition 4294967296 4294967297\n"}) {
    WriteMarker(dir.path(), text);
    StoreLayout out;
    std::string error;
    EXPECT_FALSE(ReadLayout(dir.location(), &out, &error))
        << "'" << text << "' read as " << out.Describe();
  }
}

}  // namespace
}  // namespace deltameta
