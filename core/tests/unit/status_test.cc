// Tests status.h and rocksdb_status.h: a failure's text is its whole sentence, with no code
// before it, and context goes before it; RocksDB's statuses keep their code where Status has
// it and their text exactly as RocksDB writes it.
#include "deltameta/status.h"

#include <gtest/gtest.h>

#include "store/rocksdb_status.h"

namespace deltameta {
namespace {

TEST(StatusTest, AFailureIsItsWholeSentence) {
  EXPECT_TRUE(Status().ok());
  EXPECT_EQ(Status::OK().ToString(), "OK");
  const Status s = Status::InvalidArgument("flag --n given twice");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.ToString(), "flag --n given twice");
}

TEST(StatusTest, ContextGoesBeforeTheTextAndKeepsTheCode) {
  const Status s = Status::NotFound("/db/r0 is not a deltameta store").WithContext("cannot open /db");
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_EQ(s.ToString(), "cannot open /db: /db/r0 is not a deltameta store");
  EXPECT_TRUE(Status::OK().WithContext("cannot open /db").ok());
}

TEST(StatusTest, RocksDbStatusesKeepTheirCodeAndText) {
  EXPECT_TRUE(FromRocksDb(rocksdb::Status::OK()).ok());
  for (const rocksdb::Status& r : {rocksdb::Status::NotFound(), rocksdb::Status::NotFound("no such key"),
                                   rocksdb::Status::NoSpace("while appending"), rocksdb::Status::IOError("disk"),
                                   rocksdb::Status::Corruption("bad block"), rocksdb::Status::InvalidArgument("x"),
                                   rocksdb::Status::Busy("busy")}) {
    const Status s = FromRocksDb(r);
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.ToString(), r.ToString());
    EXPECT_EQ(s.IsNotFound(), r.IsNotFound()) << r.ToString();
    EXPECT_EQ(s.IsCorruption(), r.IsCorruption()) << r.ToString();
    EXPECT_EQ(s.IsInvalidArgument(), r.IsInvalidArgument()) << r.ToString();
  }
  EXPECT_EQ(
      FromRocksDb(rocksdb::Status::NoSpace("while appending")).WithContext("cannot write to store /db/r0").ToString(),
      "cannot write to store /db/r0: IO error: No space left on device: while appending");
}

}  // namespace
}  // namespace deltameta
