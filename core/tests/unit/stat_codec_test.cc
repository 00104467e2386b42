// Tests stat_codec.h and varint.h: round trips of extreme values, the compact layout, and
// rejection of every malformed encoding (so each stat has exactly one encoding).
#include "deltameta/stat_codec.h"

#include <gtest/gtest.h>

#include "format/varint.h"

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
  s.mtime_us = UINT64_MAX - 1;
  s.ctime_us = 1;  // wraps around: the difference is taken modulo 2^64
  return s;
}

FileStat BenchmarkStat() {  // as workload.h creates them
  FileStat s;
  s.ino = 150000;
  s.mode = 0100644;
  s.uid = 1003;
  s.gid = 1000;
  s.mtime_us = s.ctime_us = 1795000000000000;
  return s;
}

std::string Encoded(const FileStat& s) {
  std::string buf;
  AppendStat(&buf, s);
  return buf;
}

TEST(StatCodecTest, RoundTripsExtremeValues) {
  FileStat older = BenchmarkStat();
  older.ctime_us -= 5;
  for (const FileStat& s : {FileStat(), MaxStat(), MixedStat(), BenchmarkStat(), older}) {
    std::string buf = Encoded(s);
    ASSERT_LE(buf.size(), kMaxEncodedStatBytes);
    FileStat got = MaxStat();
    ASSERT_TRUE(DecodeStat(buf, &got));
    EXPECT_EQ(got, s);
  }
  EXPECT_EQ(Encoded(MaxStat()).size(), 1 + 10 + 5 + 5 + 5 + 10 + 10 + 1u);
}

TEST(StatCodecTest, LayoutIsVersionThenVarints) {
  EXPECT_EQ(Encoded(FileStat()), std::string("\x02\0\0\0\0\0\0\0", 8));
  const std::string b = Encoded(BenchmarkStat());
  EXPECT_EQ(b.size(), 1 + 3 + 3 + 2 + 2 + 1 + 8 + 1u);  // a benchmark entry: 21 bytes
  EXPECT_EQ(static_cast<uint8_t>(b[0]), kStatFormatVersion);
  EXPECT_EQ(b.substr(1, 3), "\xf0\x93\x09");  // ino 150000, least significant group first
  EXPECT_EQ(b.back(), '\0');                  // ctime equal to mtime
  char out[kMaxEncodedStatBytes];
  EXPECT_EQ(std::string(out, EncodeStat(BenchmarkStat(), out)), b);
}

TEST(StatCodecTest, ConsumesOneStatFromAStream) {
  std::string two = Encoded(BenchmarkStat()) + Encoded(MaxStat()) + "x";
  std::string_view in = two;
  FileStat a, b;
  ASSERT_TRUE(ConsumeStat(&in, &a));
  ASSERT_TRUE(ConsumeStat(&in, &b));
  EXPECT_EQ(a, BenchmarkStat());
  EXPECT_EQ(b, MaxStat());
  EXPECT_EQ(in, "x");
  EXPECT_FALSE(DecodeStat(Encoded(BenchmarkStat()) + "x", &a));
}

TEST(StatCodecTest, RejectsTruncatedEncodings) {
  for (const FileStat& s : {FileStat(), MaxStat(), BenchmarkStat()}) {
    const std::string buf = Encoded(s);
    FileStat got;
    for (size_t len = 0; len < buf.size(); len++) {
      EXPECT_FALSE(DecodeStat(std::string_view(buf).substr(0, len), &got)) << len;
    }
  }
}

TEST(StatCodecTest, RejectsWrongVersion) {
  std::string buf = Encoded(MixedStat());
  FileStat got;
  for (int v : {0, 1, kStatFormatVersion + 1, 0xff}) {
    buf[0] = static_cast<char>(v);
    EXPECT_FALSE(DecodeStat(buf, &got)) << "version " << v;
  }
}

TEST(StatCodecTest, RejectsOversizedAndOverlongVarints) {
  FileStat got;
  const std::string zeros(6, '\0');  // mode .. ctime delta, all 0
  // ino of 2^64: ten bytes whose last carries a bit past the 64th.
  EXPECT_FALSE(DecodeStat("\x02" + std::string(9, '\xff') + "\x02" + zeros, &got));
  EXPECT_TRUE(DecodeStat("\x02" + std::string(9, '\xff') + "\x01" + zeros, &got));
  EXPECT_EQ(got.ino, UINT64_MAX);
  // mode of 2^32 (a 32-bit field).
  EXPECT_FALSE(DecodeStat(std::string("\x02\x00", 2) + "\x80\x80\x80\x80\x10" + std::string(5, '\0'), &got));
  EXPECT_TRUE(DecodeStat(std::string("\x02\x00", 2) + "\xff\xff\xff\xff\x0f" + std::string(5, '\0'), &got));
  EXPECT_EQ(got.mode, UINT32_MAX);
  // Eleven bytes, and a value written longer than it needs to be.
  EXPECT_FALSE(DecodeStat("\x02" + std::string(10, '\x80') + "\x01" + zeros, &got));
  EXPECT_FALSE(DecodeStat(std::string("\x02\x81\x00", 3) + zeros, &got));
}

TEST(VarintTest, ZigZagMapsSmallMagnitudesToSmallCodes) {
  EXPECT_EQ(ZigZag(0), 0u);
  EXPECT_EQ(ZigZag(-1), 1u);
  EXPECT_EQ(ZigZag(1), 2u);
  EXPECT_EQ(ZigZag(INT64_MIN), UINT64_MAX);
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{63}, int64_t{-64}, INT64_MAX, INT64_MIN}) {
    EXPECT_EQ(UnZigZag(ZigZag(v)), v);
  }
}

}  // namespace
}  // namespace deltameta
