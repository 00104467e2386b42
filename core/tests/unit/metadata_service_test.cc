// Tests metadata_service.h through its frame handler, as the server loops call it: objects
// with inline data (create, read, delete), the inline limit, an lstat of an entry with data,
// read-only refusal, names of another partition, and malformed request bodies.
#include "server/metadata_service.h"

#include <gtest/gtest.h>

#include "deltameta/key.h"
#include "deltameta/layout.h"
#include "deltameta/partition.h"
#include "temp_dir.h"

namespace deltameta {
namespace {

FileStat ObjectStat(uint64_t size) {
  FileStat s;
  s.ino = 42;
  s.mode = 0100644;
  s.uid = 1000;
  s.gid = 1000;
  s.size = size;
  s.mtime_us = s.ctime_us = 1700000000000000;
  return s;
}

std::string Data(size_t n, char seed) {
  std::string d(n, '\0');
  for (size_t i = 0; i < n; i++) d[i] = static_cast<char>(seed + i * 7);
  return d;
}

class MetadataServiceTest : public ::testing::Test {
 protected:
  // A service over a new store (or, with `read_only`, the store created before).
  void Start(bool read_only = false, uint32_t partitions = 1, bool check_existence = true) {
    service_.reset();
    store_.reset();
    const StoreLayout layout{StoreLayout::Kind::kPartition, 0, partitions};
    const Status opened = Store::Open(dir_.path() + "/s", read_only ? Store::Mode::kReadOnly : Store::Mode::kCreate,
                                      StoreOptions(), layout, &store_);
    ASSERT_TRUE(opened.ok()) << opened.ToString();
    service_ = std::make_unique<MetadataService>(store_.get(), 0, partitions, check_existence, "test");
  }

  // Hands `frame` to the service; the reply's body, after checking its type and sequence number.
  std::string Call(const std::string& frame, MsgType reply_type) {
    FrameHeader h;
    EXPECT_EQ(ParseFrameHeader(frame.data(), &h), HeaderError::kNone);
    std::string reply;
    EXPECT_TRUE(service_->Handle(h, std::string_view(frame).substr(kFrameHeaderBytes), &reply));
    FrameHeader rh;
    EXPECT_EQ(ParseFrameHeader(reply.data(), &rh), HeaderError::kNone);
    EXPECT_EQ(rh.type, reply_type);
    EXPECT_EQ(rh.seq, h.seq);
    return reply.substr(kFrameHeaderBytes);
  }

  CreateDataReply CreateData(const std::string& name, const std::string& data) {
    std::string frame;
    EncodeCreateData(CreateDataRequest{9, name, ObjectStat(data.size()), data}, 1, &frame);
    CreateDataReply r;
    EXPECT_TRUE(DecodeCreateDataReply(Call(frame, MsgType::kCreateDataReply), &r));
    return r;
  }
  ReadDataReply ReadData(const std::string& name) {
    std::string frame;
    EncodeReadData(NameRequest{9, name}, 2, &frame);
    ReadDataReply r;
    EXPECT_TRUE(DecodeReadDataReply(Call(frame, MsgType::kReadDataReply), &r));
    return r;
  }
  OpStatus Delete(const std::string& name) {
    std::string frame;
    EncodeDelete(NameRequest{9, name}, 3, &frame);
    OpStatus s = OpStatus::kIoError;
    EXPECT_TRUE(DecodeDeleteReply(Call(frame, MsgType::kDeleteReply), &s));
    return s;
  }
  StatReply Lstat(const std::string& name) {
    std::string frame;
    EncodeLstat(LstatRequest{9, name}, 4, &frame);
    StatReply r;
    EXPECT_TRUE(DecodeStatReply(Call(frame, MsgType::kStatReply), &r));
    return r;
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<MetadataService> service_;
};

TEST_F(MetadataServiceTest, KeepsDataInlineAndReadsItBack) {
  Start();
  const std::string data = Data(3901, 'a');
  CreateDataReply c = CreateData("o0.0.1", data);
  EXPECT_EQ(c.status, OpStatus::kOk);
  EXPECT_EQ(c.inline_data_max, kMaxInlineDataBytes);
  ReadDataReply r = ReadData("o0.0.1");
  EXPECT_EQ(r.status, OpStatus::kOk);
  EXPECT_EQ(r.stat, ObjectStat(data.size()));
  EXPECT_EQ(r.data, data);
  // The stored value is the encoded stat followed by the data.
  std::string value, expected;
  ASSERT_TRUE(store_->Get(EncodeKey(9, "o0.0.1"), &value).ok());
  AppendStat(&expected, ObjectStat(data.size()));
  EXPECT_EQ(value, expected + data);
  // A second create of the name is refused; the first object stays.
  EXPECT_EQ(CreateData("o0.0.1", "other").status, OpStatus::kExists);
  EXPECT_EQ(ReadData("o0.0.1").data, data);
}

TEST_F(MetadataServiceTest, LstatOfAnObjectReturnsOnlyItsStat) {
  Start();
  ASSERT_EQ(CreateData("o1", Data(100, 'x')).status, OpStatus::kOk);
  StatReply s = Lstat("o1");
  EXPECT_EQ(s.status, OpStatus::kOk);
  EXPECT_EQ(s.stat, ObjectStat(100));
  // An entry created without data reads back with none.
  std::string frame;
  EncodeCreate(CreateRequest{9, "plain", ObjectStat(0)}, 5, &frame);
  StatReply created;
  ASSERT_TRUE(DecodeStatReply(Call(frame, MsgType::kStatReply), &created));
  EXPECT_EQ(created.status, OpStatus::kOk);
  ReadDataReply r = ReadData("plain");
  EXPECT_EQ(r.status, OpStatus::kOk);
  EXPECT_EQ(r.stat, ObjectStat(0));
  EXPECT_TRUE(r.data.empty());
}

TEST_F(MetadataServiceTest, DeleteRemovesTheEntry) {
  Start();
  ASSERT_EQ(CreateData("o2", Data(10, 'y')).status, OpStatus::kOk);
  EXPECT_EQ(Delete("o2"), OpStatus::kOk);
  EXPECT_EQ(Lstat("o2").status, OpStatus::kNotFound);
  EXPECT_EQ(ReadData("o2").status, OpStatus::kNotFound);
  EXPECT_TRUE(ReadData("o2").data.empty());
  EXPECT_EQ(Delete("o2"), OpStatus::kNotFound);  // creates are checked: so are deletes
  // The name can be created again, with other data.
  ASSERT_EQ(CreateData("o2", "again").status, OpStatus::kOk);
  EXPECT_EQ(ReadData("o2").data, "again");
}

TEST_F(MetadataServiceTest, UncheckedDeleteOfAnAbsentNameSucceeds) {
  Start(false, 1, false);
  EXPECT_EQ(Delete("never"), OpStatus::kOk);
}

TEST_F(MetadataServiceTest, EnforcesTheInlineLimit) {
  Start();
  service_->SetInlineDataMax(1000);
  EXPECT_EQ(CreateData("at", Data(1000, 'a')).status, OpStatus::kOk);
  CreateDataReply over = CreateData("over", Data(1001, 'b'));
  EXPECT_EQ(over.status, OpStatus::kTooLarge);
  EXPECT_EQ(over.inline_data_max, 1000u);
  EXPECT_EQ(Lstat("over").status, OpStatus::kNotFound);
  // Above what any server keeps (an entry record's value): refused at the largest limit too.
  service_->SetInlineDataMax(UINT32_MAX);
  EXPECT_EQ(CreateData("max", Data(kMaxInlineDataBytes, 'c')).status, OpStatus::kOk);
  EXPECT_EQ(ReadData("max").data, Data(kMaxInlineDataBytes, 'c'));
  CreateDataReply huge = CreateData("huge", Data(kMaxInlineDataBytes + 1, 'd'));
  EXPECT_EQ(huge.status, OpStatus::kTooLarge);
  EXPECT_EQ(huge.inline_data_max, kMaxInlineDataBytes);
}

TEST_F(MetadataServiceTest, ReadOnlyServerRefusesCreatesAndDeletes) {
  Start();
  ASSERT_EQ(CreateData("kept", Data(64, 'k')).status, OpStatus::kOk);
  Start(true);
  EXPECT_EQ(CreateData("new", "x").status, OpStatus::kReadOnly);
  EXPECT_EQ(CreateData("new", Data(kMaxInlineDataBytes + 1, 'z')).status, OpStatus::kReadOnly);
  EXPECT_EQ(Delete("kept"), OpStatus::kReadOnly);
  EXPECT_EQ(ReadData("kept").data, Data(64, 'k'));
  EXPECT_EQ(Lstat("kept").stat, ObjectStat(64));
  EXPECT_EQ(Lstat("new").status, OpStatus::kNotFound);
}

TEST_F(MetadataServiceTest, RefusesNamesOfAnotherPartition) {
  Start(false, 2);
  std::string mine = "a", other = "a";
  for (int i = 0; PartitionOf(mine, 2) != 0; i++) mine = "a" + std::to_string(i);
  for (int i = 0; PartitionOf(other, 2) != 1; i++) other = "b" + std::to_string(i);
  EXPECT_EQ(CreateData(mine, "m").status, OpStatus::kOk);
  EXPECT_EQ(CreateData(other, "o").status, OpStatus::kWrongServer);
  EXPECT_EQ(ReadData(other).status, OpStatus::kWrongServer);
  EXPECT_EQ(Delete(other), OpStatus::kWrongServer);
}

TEST_F(MetadataServiceTest, DropsMalformedBodies) {
  Start();
  std::string frame;
  // The stat's size is not the data's length.
  CreateDataRequest bad{9, "o", ObjectStat(5), "abc"};
  EncodeCreateData(bad, 1, &frame);
  FrameHeader h;
  ASSERT_EQ(ParseFrameHeader(frame.data(), &h), HeaderError::kNone);
  std::string reply;
  EXPECT_FALSE(service_->Handle(h, std::string_view(frame).substr(kFrameHeaderBytes), &reply));
  for (MsgType t : {MsgType::kCreateData, MsgType::kReadData, MsgType::kDelete}) {
    h.type = t;
    EXPECT_FALSE(service_->Handle(h, "", &reply)) << static_cast<int>(t);
    EXPECT_FALSE(service_->Handle(h, std::string(3, '\xff'), &reply)) << static_cast<int>(t);
  }
  // Replies sent as requests.
  for (MsgType t : {MsgType::kCreateDataReply, MsgType::kReadDataReply, MsgType::kDeleteReply}) {
    h.type = t;
    EXPECT_FALSE(service_->Handle(h, std::string(1, '\0'), &reply)) << static_cast<int>(t);
  }
  EXPECT_EQ(Lstat("o").status, OpStatus::kNotFound);
}

}  // namespace
}  // namespace deltameta
