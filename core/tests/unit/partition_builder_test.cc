// Tests partition_builder.h, run_file.h, run_merge.h and entry_record.h: entries added in
// any order as batches of records come out of the built store sorted, once each (the first
// value of a repeated key, in arrival order), names of every allowed length included, the
// same whether the partition fits the builder's bound or is spilled as sorted runs and
// merged (in one pass, or in several when the runs outnumber the bound's buffers).
#include "compactor/partition_builder.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "compactor/run_file.h"
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

std::string Records(const Entries& entries) {
  std::string out;
  for (const auto& [key, value] : entries) {
    const size_t at = out.size();
    out.resize(at + EntryRecordBytes(key, value));
    EXPECT_EQ(WriteEntryRecord(&out[at], key, value), out.size() - at);
  }
  return out;
}

// Builds the partition into a new store and returns what the store holds, in order.
Entries BuildAndRead(PartitionBuilder* builder, const TempDir& dir, uint64_t* duplicates) {
  std::string error;
  StoreOptions options;
  EXPECT_TRUE(builder->Build(dir.path() + "/store", options, StoreLayout{StoreLayout::Kind::kPartition, 0, 1},
                             duplicates, &error))
      << error;
  std::unique_ptr<Store> store;
  const Status opened = Store::Open(dir.path() + "/store", Store::Mode::kReadOnly, options, StoreLayout{}, &store);
  EXPECT_TRUE(opened.ok()) << opened.ToString();
  Entries got;
  if (!store) return got;
  auto it = store->NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) got.emplace_back(it->key().ToString(), it->value().ToString());
  return got;
}

// 20,000 names of 1 to 255 bytes (the longest keys a store holds) in a random order, then
// `repeats` of them again with other values: the first value must win.
struct Workload {
  std::map<std::string, std::string> expected;
  Entries adds;
  size_t repeats = 100;

  Workload() {
    for (int i = 0; i < 20000; i++) {
      std::string name = std::to_string(i) + std::string(static_cast<size_t>(i % kMaxNameBytes), 'n');
      name.resize(std::min(name.size(), kMaxNameBytes));
      std::string key = EncodeKey(7, name);
      if (expected.emplace(key, StatWithIno(static_cast<uint64_t>(i))).second) adds.emplace_back(key, expected[key]);
    }
    std::shuffle(adds.begin(), adds.end(), std::mt19937(42));
    for (size_t i = 0; i < repeats; i++) adds.emplace_back(adds[i].first, StatWithIno(999999));
  }
};

// Adds the workload in batches of `batch` records to a builder of `bound` bytes; checks
// the store and the duplicate count, and returns how many runs were spilled.
size_t BuildWorkload(size_t bound, size_t batch) {
  TempDir dir;
  Workload w;
  PartitionBuilder builder(dir.location(), bound);
  std::string error;
  for (size_t i = 0; i < w.adds.size(); i += batch) {
    const Entries part(w.adds.begin() + static_cast<std::ptrdiff_t>(i),
                       w.adds.begin() + static_cast<std::ptrdiff_t>(std::min(i + batch, w.adds.size())));
    EXPECT_TRUE(builder.AddRecords(Records(part), &error)) << error;
  }
  EXPECT_EQ(builder.size(), w.adds.size());
  const size_t runs = builder.runs();
  uint64_t duplicates = 0;
  EXPECT_EQ(BuildAndRead(&builder, dir, &duplicates), Entries(w.expected.begin(), w.expected.end()));
  EXPECT_EQ(duplicates, w.repeats);
  return runs;
}

TEST(PartitionBuilderTest, WritesEveryKeyOnceInOrderWhenItFits) {
  EXPECT_EQ(BuildWorkload(64 << 20, 1), 0u);
  EXPECT_EQ(BuildWorkload(64 << 20, 1000), 0u);
}

TEST(PartitionBuilderTest, SpillsSortedRunsAndMergesThemInOnePass) {
  // About 2.9 MB of records and index: 1 MiB holds a third, and 16 run buffers.
  const size_t runs = BuildWorkload(1 << 20, 500);
  EXPECT_GE(runs, 3u);
  EXPECT_LE(runs, 16u);
}

TEST(PartitionBuilderTest, MergesInPassesWhenRunsOutnumberBuffers) {
  // 128 KiB: runs of a few hundred records, merged two at a time, in several passes.
  EXPECT_GT(BuildWorkload(128 << 10, 100), 8u);
}

TEST(PartitionBuilderTest, TakesBatchesOfRecordsInArrivalOrder) {
  TempDir dir;
  const std::string a = EncodeKey(1, "a"), b = EncodeKey(1, "b"), c = EncodeKey(1, "c");
  PartitionBuilder builder(dir.location(), 1 << 20);
  std::string error;
  ASSERT_TRUE(builder.AddRecords(Records({{c, StatWithIno(3)}}), &error));
  ASSERT_TRUE(builder.AddRecords(Records({{b, StatWithIno(2)}, {c, StatWithIno(30)}}), &error));
  ASSERT_TRUE(builder.AddRecords(Records({{a, StatWithIno(1)}}), &error));
  ASSERT_TRUE(builder.AddRecords(Records({{a, StatWithIno(10)}}), &error));
  ASSERT_TRUE(builder.AddRecords("", &error));
  EXPECT_EQ(builder.size(), 5u);

  // Not whole records: refused, and nothing taken.
  const std::string good = Records({{b, StatWithIno(20)}});
  for (size_t len = 1; len < good.size(); len++) {
    EXPECT_FALSE(builder.AddRecords(good.substr(0, len), &error)) << len;
    EXPECT_NE(error.find("malformed"), std::string::npos) << error;
  }
  EXPECT_FALSE(builder.AddRecords(good + "x", &error));
  EXPECT_EQ(builder.size(), 5u);

  uint64_t duplicates = 0;
  const Entries want = {{a, StatWithIno(1)}, {b, StatWithIno(2)}, {c, StatWithIno(3)}};
  EXPECT_EQ(BuildAndRead(&builder, dir, &duplicates), want);
  EXPECT_EQ(duplicates, 2u);
}

TEST(RunFileTest, ReadsBackRecordsLargerThanItsBufferAndRefusesATruncatedRun) {
  TempDir dir;
  const StorageLocation file = dir.location().Child("run");
  const Entries entries = {{"k1", "v"}, {std::string(0xffff, 'k'), std::string(0xffff, 'v')}, {"k3", ""}};
  RunWriter writer;
  ASSERT_TRUE(writer.Open(file, 4096).ok());
  for (const auto& [key, value] : entries) ASSERT_TRUE(writer.Add(key, value).ok());
  ASSERT_TRUE(writer.Close().ok());

  RunReader reader;
  ASSERT_TRUE(reader.Open(file, 4096).ok());
  Entries got;
  while (reader.Next()) got.emplace_back(reader.key(), reader.value());
  EXPECT_TRUE(reader.status().ok()) << reader.status().ToString();
  EXPECT_EQ(got, entries);

  std::filesystem::resize_file(file.path(), std::filesystem::file_size(file.path()) - 1);
  ASSERT_TRUE(reader.Open(file, 4096).ok());
  size_t read = 0;
  while (reader.Next()) read++;
  EXPECT_EQ(read, 2u);
  EXPECT_TRUE(reader.status().IsCorruption()) << reader.status().ToString();
  EXPECT_NE(reader.status().ToString().find("ends inside a record"), std::string::npos);
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
