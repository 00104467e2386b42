// Tests partition_builder.h: entries added in any order come out of the built store sorted,
// once each (the first value of a repeated key), names of every allowed length included.
#include "deltameta/partition_builder.h"

#include <algorithm>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "deltameta/key.h"
#include "deltameta/stat_codec.h"
#include "deltameta/store.h"
#include "temp_dir.h"

namespace deltameta {
namespace {

std::string StatWithIno(uint64_t ino) {
  FileStat s;
  s.ino = ino;
  s.mode = 0100644;
  std::string v;
  AppendStat(&v, s);
  return v;
}

TEST(PartitionBuilderTest, WritesEveryKeyOnceInOrder) {
  // Names of 1 to 255 bytes (the longest keys a store holds), across several 1 MiB blocks.
  std::map<std::string, std::string> expected;
  std::vector<std::pair<std::string, std::string>> adds;
  for (int i = 0; i < 20000; i++) {
    std::string name = std::to_string(i) + std::string(static_cast<size_t>(i % kMaxNameBytes), 'n');
    name.resize(std::min(name.size(), kMaxNameBytes));
    std::string key = EncodeKey(7, name);
    if (expected.emplace(key, StatWithIno(static_cast<uint64_t>(i))).second) {
      adds.emplace_back(key, expected[key]);
    }
  }
  std::shuffle(adds.begin(), adds.end(), std::mt19937(42));
  // Repeats of some keys, added after their first value: the first value wins.
  const size_t repeats = 100;
  for (size_t i = 0; i < repeats; i++) adds.emplace_back(adds[i].first, StatWithIno(999999));

  PartitionBuilder builder;
  for (const auto& [key, value] : adds) builder.Add(key, value);
  EXPECT_EQ(builder.size(), adds.size());

  TempDir dir;
  std::string error;
  uint64_t duplicates = 0;
  StoreOptions options;
  ASSERT_TRUE(builder.Build(dir.location(), dir.path() + "/store", options,
                            StoreLayout{StoreLayout::Kind::kPartition, 0, 1}, &duplicates, &error))
      << error;
  EXPECT_EQ(duplicates, repeats);

  auto store = Store::Open(dir.path() + "/store", Store::Mode::kReadOnly, options, StoreLayout{}, &error);
  ASSERT_TRUE(store) << error;
  auto it = store->NewIterator();
  auto want = expected.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++want) {
    ASSERT_NE(want, expected.end());
    ASSERT_EQ(it->key().ToString(), want->first);
    ASSERT_EQ(it->value().ToString(), want->second);
  }
  EXPECT_EQ(want, expected.end());
}

}  // namespace
}  // namespace deltameta
