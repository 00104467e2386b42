// Tests stat_codec.h: FileStat encoding round trip, byte layout, and rejection of bad input.
#include "deltameta/stat_codec.h"

#include <gtest/gtest.h>

namespace deltameta {
namespace {

FileStat MaxStat() {
  FileStat s;
  s.ino = UINT64_MAX;
  s.mode = UINT32_MAX;
  s.uid = UINT32_MAX;
  s.gid = UINT32_MAX;
  s.size = UINT64_MAX;
  s.mtime_us = UINT64_MAX;
  s.ctime_us = UINT64_MAX;
  return s;
}

FileStat MixedStat() {
  FileStat s;
  s.ino = 0x0102030405060708;
  s.mode = 0100644;
  s.uid = 0x80000000;
  s.gid = 1;
  s.size = uint64_t{1} << 63;
  s.mtime_us = 1;
  s.ctime_us = UINT64_MAX - 1;
  return s;
}

TEST(StatCodecTest, RoundTripsExtremeValues) {
  for (const FileStat& s : {FileStat(), MaxStat(), MixedStat()}) {
    std::string buf;
    AppendStat(&buf, s);
    ASSERT_EQ(buf.size(), kEncodedStatBytes);
    FileStat got = MaxStat();
    ASSERT_TRUE(DecodeStat(buf, &got));
    EXPECT_EQ(got, s);
  }
}

TEST(StatCodecTest, LayoutIsVersionThenLittleEndianFields) {
  char out[kEncodedStatBytes];
  EncodeStat(MixedStat(), out);
  EXPECT_EQ(static_cast<uint8_t>(out[0]), kStatFormatVersion);
  EXPECT_EQ(out[1], 0x08);  // ino, least significant byte first
  EXPECT_EQ(out[8], 0x01);
  EXPECT_EQ(static_cast<uint8_t>(out[16]), 0x80);  // uid's top byte
  EXPECT_EQ(out[17], 0x01);                        // gid
  EXPECT_EQ(static_cast<uint8_t>(out[28]), 0x80);  // size's top byte
  std::string appended = "x";
  AppendStat(&appended, MixedStat());
  EXPECT_EQ(appended, "x" + std::string(out, sizeof(out)));
}

TEST(StatCodecTest, RejectsWrongSize) {
  std::string buf;
  AppendStat(&buf, MixedStat());
  FileStat got;
  EXPECT_FALSE(DecodeStat("", &got));
  EXPECT_FALSE(DecodeStat(std::string_view(buf).substr(0, kEncodedStatBytes - 1), &got));
  EXPECT_FALSE(DecodeStat(buf + '\0', &got));
  EXPECT_FALSE(DecodeStat(buf + buf, &got));
}

TEST(StatCodecTest, RejectsWrongVersion) {
  std::string buf;
  AppendStat(&buf, MixedStat());
  FileStat got;
  for (int v : {0, kStatFormatVersion + 1, 0xff}) {
    buf[0] = static_cast<char>(v);
    EXPECT_FALSE(DecodeStat(buf, &got)) << "version " << v;
  }
}

}  // namespace
}  // namespace deltameta
