// A fixture for the memtable tests (hashed_memtable_test.cc, sorted_vector_memtable_test.cc):
// a real RocksDB store in a fresh directory and what it should hold, which every Put and
// Delete through the fixture changes alike.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include "temp_dir.h"

class ExpectingStoreTest : public ::testing::Test {
 protected:
  void OpenWith(const rocksdb::Options& options, const std::string& name = "db") {
    db_.reset();
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir_.path() + "/" + name, &db).ok());
    db_.reset(db);
  }

  void Put(const std::string& key, const std::string& value) {
    ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), key, value).ok());
    expected_[key] = value;
  }

  void Delete(const std::string& key) {
    ASSERT_TRUE(db_->Delete(rocksdb::WriteOptions(), key).ok());
    expected_.erase(key);
  }

  TempDir dir_;
  std::unique_ptr<rocksdb::DB> db_;
  std::map<std::string, std::string> expected_;
};
