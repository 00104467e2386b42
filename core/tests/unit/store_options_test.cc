// Tests store_options.h: defaults, DELTAFS_Db_* environment overrides, and the RocksDB mapping.
#include "deltameta/store_options.h"

#include <stdlib.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <rocksdb/table.h>

extern char** environ;

namespace deltameta {
namespace {

// Clears every DELTAFS_Db_* variable for the test and restores the original ones after it.
class StoreOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = Current();
    for (const auto& [name, value] : saved_) unsetenv(name.c_str());
  }
  void TearDown() override {
    for (const auto& [name, value] : Current()) unsetenv(name.c_str());
    for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
  }

  static std::vector<std::pair<std::string, std::string>> Current() {
    std::vector<std::pair<std::string, std::string>> vars;
    for (char** e = environ; *e != nullptr; e++) {
      if (std::strncmp(*e, "DELTAFS_Db_", 11) != 0) continue;
      std::string entry = *e;
      size_t eq = entry.find('=');
      vars.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
    }
    return vars;
  }

  // Loads from an environment holding exactly `name`=`value`; returns the error, "" if none.
  std::string LoadWith(const char* name, const char* value) {
    setenv(name, value, 1);
    const Status s = options_.LoadFromEnvironment();
    unsetenv(name);
    EXPECT_TRUE(s.ok() || s.IsInvalidArgument()) << s.ToString();
    return s.ok() ? "" : s.ToString();
  }

  StoreOptions options_;
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(StoreOptionsTest, Defaults) {
  const Status s = options_.LoadFromEnvironment();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(options_.memtable_size, 8 << 20);
  EXPECT_EQ(options_.table_size, 4 << 20);
  EXPECT_EQ(options_.block_size, 4 << 10);
  EXPECT_EQ(options_.block_cache_size, 0);
  EXPECT_EQ(options_.bloom_bits, 10);
  EXPECT_EQ(options_.level_factor, 8);
  EXPECT_EQ(options_.l1_compaction_trigger, 5);
  EXPECT_EQ(options_.l0_soft_limit, 8);
  EXPECT_EQ(options_.l0_hard_limit, 12);
  EXPECT_EQ(options_.compression, StoreOptions::CompressionAvailable());  // Snappy if built with it
  EXPECT_FALSE(options_.disable_compaction);
  EXPECT_FALSE(options_.disable_write_ahead_logging);
  EXPECT_EQ(options_.write_ahead_log_buffer, 64 << 10);
}

TEST_F(StoreOptionsTest, ReadsEnvironment) {
  setenv("DELTAFS_Db_memtable_size", "1048576", 1);
  setenv("DELTAFS_Db_table_size", "65536", 1);
  setenv("DELTAFS_Db_bloom_bits", "0", 1);
  setenv("DELTAFS_Db_l0_soft_limit", "20", 1);
  setenv("DELTAFS_Db_l0_hard_limit", "20", 1);
  setenv("DELTAFS_Db_compression", "0", 1);
  setenv("DELTAFS_Db_disable_compaction", "1", 1);
  setenv("DELTAFS_Db_disable_write_ahead_logging", "1", 1);
  const Status s = options_.LoadFromEnvironment();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(options_.memtable_size, 1 << 20);
  EXPECT_EQ(options_.table_size, 64 << 10);
  EXPECT_EQ(options_.bloom_bits, 0);
  EXPECT_EQ(options_.l0_soft_limit, 20);
  EXPECT_EQ(options_.l0_hard_limit, 20);
  EXPECT_FALSE(options_.compression);
  EXPECT_TRUE(options_.disable_compaction);
  EXPECT_TRUE(options_.disable_write_ahead_logging);
  EXPECT_EQ(options_.block_size, 4 << 10);  // untouched
  EXPECT_EQ(options_.ToJson()["table_size"], 64 << 10);
  EXPECT_EQ(options_.ToJson()["compression"], false);
  EXPECT_EQ(options_.ToJson().size(), 13u);
}

TEST_F(StoreOptionsTest, RejectsUnknownName) {
  std::string error = LoadWith("DELTAFS_Db_memtable_sise", "1048576");
  EXPECT_NE(error.find("DELTAFS_Db_memtable_sise"), std::string::npos) << error;
}

TEST_F(StoreOptionsTest, RejectsMalformedValues) {
  for (const char* value : {"", "abc", "12MB", "1.5", "0x100000"}) {
    std::string error = LoadWith("DELTAFS_Db_memtable_size", value);
    EXPECT_NE(error.find("DELTAFS_Db_memtable_size"), std::string::npos) << "'" << value << "': " << error;
  }
}

TEST_F(StoreOptionsTest, RejectsOutOfRangeValues) {
  const std::pair<const char*, const char*> cases[] = {
      {"DELTAFS_Db_memtable_size", "1024"},
      {"DELTAFS_Db_bloom_bits", "65"},
      {"DELTAFS_Db_level_factor", "-8"},
      {"DELTAFS_Db_compression", "2"},
      {"DELTAFS_Db_block_size", "99999999999999999999"},
  };
  for (const auto& [name, value] : cases) {
    std::string error = LoadWith(name, value);
    EXPECT_NE(error.find(name), std::string::npos) << name << "=" << value << ": " << error;
  }
}

// Compression is Snappy: a build without it (DELTAMETA_WITH_SNAPPY=OFF) refuses it clearly.
TEST_F(StoreOptionsTest, CompressionNeedsSnappy) {
  std::string error = LoadWith("DELTAFS_Db_compression", "1");
  if (StoreOptions::CompressionAvailable()) {
    EXPECT_EQ(error, "");
    EXPECT_TRUE(options_.compression);
  } else {
    EXPECT_NE(error.find("DELTAFS_Db_compression=1 needs Snappy"), std::string::npos) << error;
    EXPECT_FALSE(options_.compression);
  }
  EXPECT_EQ(LoadWith("DELTAFS_Db_compression", "0"), "");
  EXPECT_FALSE(options_.compression);
}

TEST_F(StoreOptionsTest, RejectsHardLimitBelowSoft) {
  setenv("DELTAFS_Db_l0_soft_limit", "20", 1);
  std::string error = LoadWith("DELTAFS_Db_l0_hard_limit", "19");
  EXPECT_NE(error.find("l0_hard_limit"), std::string::npos) << error;
}

TEST_F(StoreOptionsTest, MapsOntoRocksDb) {
  options_.compression = true;
  options_.memtable_size = 3 << 20;
  options_.table_size = 5 << 20;
  options_.level_factor = 10;
  options_.l1_compaction_trigger = 4;
  options_.l0_soft_limit = 9;
  options_.l0_hard_limit = 13;
  rocksdb::Options o = options_.ToRocksDb();
  EXPECT_EQ(o.write_buffer_size, size_t{3} << 20);
  EXPECT_EQ(o.target_file_size_base, uint64_t{5} << 20);
  EXPECT_EQ(o.max_bytes_for_level_multiplier, 10.0);
  EXPECT_EQ(o.level0_file_num_compaction_trigger, 4);
  EXPECT_EQ(o.compression, rocksdb::kSnappyCompression);
  EXPECT_FALSE(o.disable_auto_compactions);
  EXPECT_EQ(o.level0_slowdown_writes_trigger, 9);
  EXPECT_EQ(o.level0_stop_writes_trigger, 13);
  EXPECT_FALSE(options_.ToWriteOptions().disableWAL);
  // Tables in format 4, whose Bloom filter builder holds 4 bytes a key (format 5: 8).
  EXPECT_EQ(o.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>()->format_version, 4u);

  options_.compression = false;
  options_.disable_compaction = true;
  options_.disable_write_ahead_logging = true;
  o = options_.ToRocksDb();
  EXPECT_EQ(o.compression, rocksdb::kNoCompression);
  EXPECT_TRUE(o.disable_auto_compactions);
  EXPECT_GE(o.level0_slowdown_writes_trigger, 1 << 20);  // no stall: nothing drains level 0
  EXPECT_GE(o.level0_stop_writes_trigger, 1 << 20);
  EXPECT_TRUE(options_.ToWriteOptions().disableWAL);
}

TEST_F(StoreOptionsTest, StoresReadWhileWrittenUseTheHashedMemtableAndWriteOnlyOnesTheSortedVector) {
  rocksdb::Options o = options_.ToRocksDb();
  EXPECT_STREQ(o.memtable_factory->Name(), "DeltametaHashedMemTableFactory");
  EXPECT_FALSE(o.allow_concurrent_memtable_write);
  options_.write_only = true;
  o = options_.ToRocksDb();
  EXPECT_STREQ(o.memtable_factory->Name(), "DeltametaSortedVectorMemTableFactory");
  EXPECT_FALSE(o.allow_concurrent_memtable_write);
}

}  // namespace
}  // namespace deltameta
