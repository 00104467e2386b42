// Tests key.h: key encoding round trip, byte-wise order of keys, and rejection of bad keys.
#include "deltameta/key.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace deltameta {
namespace {

TEST(KeyTest, RoundTrip) {
  const std::string binary("a\0b\xff", 4);
  for (uint64_t dir : {uint64_t{0}, uint64_t{1}, uint64_t{0x0102030405060708}, UINT64_MAX}) {
    for (const std::string& name :
         {std::string("a"), std::string("f3.1a2b"), binary, std::string(kMaxNameBytes, 'z')}) {
      std::string key = EncodeKey(dir, name);
      ASSERT_EQ(key.size(), kDirIdBytes + name.size());
      uint64_t got_dir = 0;
      std::string_view got_name;
      ASSERT_TRUE(DecodeKey(key, &got_dir, &got_name));
      EXPECT_EQ(got_dir, dir);
      EXPECT_EQ(got_name, name);
    }
  }
}

TEST(KeyTest, DirIdIsBigEndianPrefix) {
  EXPECT_EQ(EncodeKey(0x0102030405060708, "x"), std::string("\x01\x02\x03\x04\x05\x06\x07\x08x", 9));
  std::string dst = "prefix";
  AppendKey(&dst, 0xff, "n");
  EXPECT_EQ(dst, std::string("prefix\0\0\0\0\0\0\0\xffn", 15));
}

TEST(KeyTest, KeysOfOneDirectoryAreContiguousAndOrdered) {
  const std::vector<uint64_t> dirs = {0, 1, 255, 256, 65535, 65536, uint64_t{1} << 32, UINT64_MAX - 1, UINT64_MAX};
  const std::vector<std::string> names = {"a", "ab", "b", "z", "\x7f", "\x80", "\xff", "\xff\xff"};
  std::vector<std::pair<uint64_t, std::string>> expected;
  std::vector<std::string> keys;
  for (uint64_t d : dirs) {
    for (const auto& n : names) {
      expected.emplace_back(d, n);
      keys.push_back(EncodeKey(d, n));
    }
  }
  auto bytewise = [](const std::string& a, const std::string& b) {
    int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
    return c != 0 ? c < 0 : a.size() < b.size();
  };
  std::shuffle(keys.begin(), keys.end(), std::mt19937(7));
  std::sort(keys.begin(), keys.end(), bytewise);
  std::sort(expected.begin(), expected.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : bytewise(a.second, b.second);
  });
  ASSERT_EQ(keys.size(), expected.size());
  for (size_t i = 0; i < keys.size(); i++) {
    uint64_t dir = 0;
    std::string_view name;
    ASSERT_TRUE(DecodeKey(keys[i], &dir, &name));
    EXPECT_EQ(dir, expected[i].first) << "position " << i;
    EXPECT_EQ(name, expected[i].second) << "position " << i;
  }
}

TEST(KeyTest, RejectsMalformedKeys) {
  uint64_t dir = 0;
  std::string_view name;
  EXPECT_FALSE(DecodeKey("", &dir, &name));
  EXPECT_FALSE(DecodeKey("1234567", &dir, &name));                       // too short
  EXPECT_FALSE(DecodeKey(std::string(kDirIdBytes, '\0'), &dir, &name));  // empty name
  EXPECT_FALSE(DecodeKey(std::string(kDirIdBytes + kMaxNameBytes + 1, 'n'), &dir, &name));
  EXPECT_TRUE(DecodeKey(std::string(kDirIdBytes + kMaxNameBytes, 'n'), &dir, &name));
  EXPECT_TRUE(DecodeKey(std::string(kDirIdBytes + 1, 'n'), &dir, &name));
}

}  // namespace
}  // namespace deltameta
