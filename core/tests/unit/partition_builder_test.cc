// Tests partition_builder.h and entry_record.h: entries added in any order, one by one or
// as batches of records, come out of the built store sorted, once each (the first value
// of a repeated key, in arrival order), names of every allowed length included.
#include "compactor/partition_builder.h"

#include <algorithm>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "deltameta/key.h"
#include "deltameta/stat_codec.h"
#include "deltameta/store.h"
#include "format/entry_record.h"
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

using Entries = std::vector<std::pair<std::string, std::string>>;

// Builds the partition into a new store and returns what the store holds, in order.
Entries BuildAndRead(PartitionBuilder* builder, uint64_t* duplicates) {
  TempDir dir;
  std::string error;
  StoreOptions options;
  EXPECT_TRUE(builder->Build(dir.location(), dir.path() + "/store", options,
                             StoreLayout{StoreLayout::Kind::kPartition, 0, 1}, duplicates, &error))
      << error;
  auto store = Store::Open(dir.path() + "/store", Store::Mode::kReadOnly, options, StoreLayout{}, &error);
  EXPECT_TRUE(store) << error;
  Entries got;
  if (!store) return got;
  auto it = store->NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) got.emplace_back(it->key().ToString(), it->value().ToString());
  return got;
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

  uint64_t duplicates = 0;
  EXPECT_EQ(BuildAndRead(&builder, &duplicates), Entries(expected.begin(), expected.end()));
  EXPECT_EQ(duplicates, repeats);
}

std::string Records(const Entries& entries) {
  std::string out;
  for (const auto& [key, value] : entries) {
    const size_t at = out.size();
    out.resize(at + EntryRecordBytes(key, value));
    EXPECT_EQ(WriteEntryRecord(&out[at], key, value), out.size() - at);
  }
  return out;
}

TEST(PartitionBuilderTest, TakesBatchesOfRecordsInArrivalOrder) {
  const std::string a = EncodeKey(1, "a"), b = EncodeKey(1, "b"), c = EncodeKey(1, "c");
  PartitionBuilder builder;
  builder.Add(c, StatWithIno(3));
  ASSERT_TRUE(builder.AddRecords(Records({{b, StatWithIno(2)}, {c, StatWithIno(30)}})));
  builder.Add(a, StatWithIno(1));
  ASSERT_TRUE(builder.AddRecords(Records({{a, StatWithIno(10)}})));
  ASSERT_TRUE(builder.AddRecords(""));
  EXPECT_EQ(builder.size(), 5u);

  // Not whole records: refused, and nothing taken.
  const std::string good = Records({{b, StatWithIno(20)}});
  for (size_t len = 1; len < good.size(); len++) EXPECT_FALSE(builder.AddRecords(good.substr(0, len))) << len;
  EXPECT_FALSE(builder.AddRecords(good + "x"));
  EXPECT_EQ(builder.size(), 5u);

  uint64_t duplicates = 0;
  const Entries want = {{a, StatWithIno(1)}, {b, StatWithIno(2)}, {c, StatWithIno(3)}};
  EXPECT_EQ(BuildAndRead(&builder, &duplicates), want);
  EXPECT_EQ(duplicates, 2u);
}

TEST(EntryRecordTest, ReadsBackWhatWasWrittenAndRefusesTruncation) {
  const std::string key(0xffff, 'k'), value = "v";
  std::string buf(EntryRecordBytes(key, value), '\0');
  ASSERT_EQ(WriteEntryRecord(&buf[0], key, value), buf.size());
  ASSERT_LE(buf.size(), kMaxEntryRecordBytes);
  std::string_view in = buf, k, v;
  ASSERT_TRUE(NextEntryRecord(&in, &k, &v));
  EXPECT_EQ(k, key);
  EXPECT_EQ(v, value);
  EXPECT_TRUE(in.empty());
  for (size_t len : {size_t{0}, size_t{1}, size_t{2}, buf.size() - 2, buf.size() - 1}) {
    in = std::string_view(buf).substr(0, len);
    EXPECT_FALSE(NextEntryRecord(&in, &k, &v)) << len;
  }
}

}  // namespace
}  // namespace deltameta
