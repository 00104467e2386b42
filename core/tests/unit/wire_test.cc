// Tests wire.h framing: every message type round-trips, and frame headers are validated.
#include "format/wire.h"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

namespace deltameta {
namespace {

FileStat ExtremeStat() {
  FileStat s;
  s.ino = UINT64_MAX;
  s.mode = 0100644;
  s.uid = UINT32_MAX;
  s.gid = 0;
  s.size = uint64_t{1} << 63;
  s.mtime_us = 1;
  s.ctime_us = UINT64_MAX - 1;
  return s;
}

// Checks the frame's header and returns its body.
std::string BodyOf(const std::string& frame, MsgType type, uint32_t seq) {
  EXPECT_GE(frame.size(), kFrameHeaderBytes);
  FrameHeader h;
  EXPECT_EQ(ParseFrameHeader(frame.data(), &h), HeaderError::kNone);
  EXPECT_EQ(h.type, type);
  EXPECT_EQ(h.seq, seq);
  EXPECT_EQ(h.body_bytes, frame.size() - kFrameHeaderBytes);
  return frame.substr(kFrameHeaderBytes);
}

TEST(WireTest, CreateRoundTrip) {
  CreateRequest in{UINT64_MAX, std::string(255, 'n'), ExtremeStat()};
  std::string frame = "stale contents are replaced";
  EncodeCreate(in, UINT32_MAX, &frame);
  CreateRequest out;
  ASSERT_TRUE(DecodeCreate(BodyOf(frame, MsgType::kCreate, UINT32_MAX), &out));
  EXPECT_EQ(out.dir_id, in.dir_id);
  EXPECT_EQ(out.name, in.name);
  EXPECT_EQ(out.stat, in.stat);
}

TEST(WireTest, LstatRoundTrip) {
  LstatRequest in{0x0102030405060708, std::string("a\0b", 3)};
  std::string frame;
  EncodeLstat(in, 0, &frame);
  LstatRequest out;
  ASSERT_TRUE(DecodeLstat(BodyOf(frame, MsgType::kLstat, 0), &out));
  EXPECT_EQ(out.dir_id, in.dir_id);
  EXPECT_EQ(out.name, in.name);
}

TEST(WireTest, IngestRoundTrip) {
  IngestRequest in{{"/x/000001.sst", std::string(kMaxPathBytes, 'p'), "t"}};
  std::string frame;
  EncodeIngest(in, 7, &frame);
  IngestRequest out{{"left over"}};
  ASSERT_TRUE(DecodeIngest(BodyOf(frame, MsgType::kIngest, 7), &out));
  EXPECT_EQ(out.table_paths, in.table_paths);
}

TEST(WireTest, InfoRoundTrip) {
  std::string frame;
  EncodeInfo(42, &frame);
  EXPECT_TRUE(DecodeInfo(BodyOf(frame, MsgType::kInfo, 42)));
}

TEST(WireTest, StatsRoundTrip) {
  for (bool count : {false, true}) {
    std::string frame;
    EncodeStats(StatsRequest{count}, 3, &frame);
    StatsRequest out{!count};
    ASSERT_TRUE(DecodeStats(BodyOf(frame, MsgType::kStats, 3), &out));
    EXPECT_EQ(out.count_entries, count);
  }
}

TEST(WireTest, StatReplyRoundTrip) {
  for (OpStatus status : {OpStatus::kOk, OpStatus::kNotFound, OpStatus::kWrongServer}) {
    std::string frame;
    EncodeStatReply(StatReply{status, ExtremeStat()}, 9, &frame);
    StatReply out;
    ASSERT_TRUE(DecodeStatReply(BodyOf(frame, MsgType::kStatReply, 9), &out));
    EXPECT_EQ(out.status, status);
    EXPECT_EQ(out.stat, ExtremeStat());
  }
}

TEST(WireTest, IngestReplyRoundTrip) {
  for (const std::string& message : {std::string(), std::string("cannot link"), std::string(kMaxPathBytes, 'm')}) {
    std::string frame;
    EncodeIngestReply(IngestReply{OpStatus::kIoError, message}, 11, &frame);
    IngestReply out{OpStatus::kOk, "left over"};
    ASSERT_TRUE(DecodeIngestReply(BodyOf(frame, MsgType::kIngestReply, 11), &out));
    EXPECT_EQ(out.status, OpStatus::kIoError);
    EXPECT_EQ(out.message, message);
  }
}

TEST(WireTest, InfoReplyRoundTrip) {
  InfoReply in{3, {"h0:1", "h0:2", "h0:3", "host-1.example:65535", "h1:2", std::string(255, 'h')}};
  std::string frame;
  EncodeInfoReply(in, 5, &frame);
  InfoReply out{1, {"left:over"}};
  ASSERT_TRUE(DecodeInfoReply(BodyOf(frame, MsgType::kInfoReply, 5), &out));
  EXPECT_EQ(out.ports_per_rank, in.ports_per_rank);
  EXPECT_EQ(out.addresses, in.addresses);
}

TEST(WireTest, StatsReplyRoundTrip) {
  StatsReply in{UINT64_MAX, uint64_t{1} << 40, true};
  std::string frame;
  EncodeStatsReply(in, 6, &frame);
  StatsReply out;
  ASSERT_TRUE(DecodeStatsReply(BodyOf(frame, MsgType::kStatsReply, 6), &out));
  EXPECT_EQ(out.cpu_micros, in.cpu_micros);
  EXPECT_EQ(out.entries, in.entries);
  EXPECT_TRUE(out.read_only);
}

TEST(WireTest, AttachShmRoundTrip) {
  std::string frame;
  for (int cpu : {-1, 0, 7, 1 << 16}) {
    EncodeAttachShm(cpu, 12, &frame);
    int out = -2;
    EXPECT_TRUE(DecodeAttachShm(BodyOf(frame, MsgType::kAttachShm, 12), &out));
    EXPECT_EQ(out, cpu);
  }
  int cpu = 0;
  EXPECT_FALSE(DecodeAttachShm("", &cpu));  // too short
  EXPECT_FALSE(DecodeAttachShm("x", &cpu));
  EXPECT_FALSE(DecodeAttachShm(std::string("\1\0\0\0\0", 5), &cpu));  // trailing byte
  EXPECT_FALSE(DecodeAttachShm(std::string("\1\0\1\0", 4), &cpu));    // CPU 65537: out of range
  for (OpStatus status : {OpStatus::kOk, OpStatus::kUnsupported}) {
    EncodeAttachShmReply(status, 13, &frame);
    OpStatus out = OpStatus::kIoError;
    ASSERT_TRUE(DecodeAttachShmReply(BodyOf(frame, MsgType::kAttachShmReply, 13), &out));
    EXPECT_EQ(out, status);
  }
  OpStatus out;
  EXPECT_FALSE(DecodeAttachShmReply("", &out));
  EXPECT_FALSE(DecodeAttachShmReply("\x08", &out));
  EXPECT_FALSE(DecodeAttachShmReply(std::string("\0\0", 2), &out));
}

TEST(WireTest, HelloRoundTrip) {
  const std::string secret(kHelloSecretBytes, '\xa5');
  std::string frame;
  EncodeHello(secret, 14, &frame);
  const std::string body = BodyOf(frame, MsgType::kHello, 14);
  std::string_view out;
  ASSERT_TRUE(DecodeHello(body, &out));
  EXPECT_EQ(out, secret);
  EXPECT_FALSE(DecodeHello("", &out));
  EXPECT_FALSE(DecodeHello(secret.substr(1), &out));  // one byte short
  EXPECT_FALSE(DecodeHello(secret + "x", &out));      // one byte over
  for (OpStatus status : {OpStatus::kOk, OpStatus::kBadSecret}) {
    EncodeHelloReply(status, 15, &frame);
    OpStatus got = OpStatus::kIoError;
    ASSERT_TRUE(DecodeHelloReply(BodyOf(frame, MsgType::kHelloReply, 15), &got));
    EXPECT_EQ(got, status);
  }
  OpStatus got;
  EXPECT_FALSE(DecodeHelloReply("", &got));
  EXPECT_FALSE(DecodeHelloReply("\x02", &got));  // only ok or a wrong secret
  EXPECT_FALSE(DecodeHelloReply(std::string("\0\0", 2), &got));
  // kBadSecret answers only a hello.
  EXPECT_FALSE(DecodeAttachShmReply(std::string(1, static_cast<char>(OpStatus::kBadSecret)), &got));
}

FileStat DataStat(size_t bytes) {
  FileStat s = ExtremeStat();
  s.size = bytes;
  return s;
}

TEST(WireTest, CreateDataRoundTrip) {
  for (const std::string& data : {std::string(), std::string("\0x\xff", 3), std::string(kMaxInlineDataBytes, 'd'),
                                  std::string(kMaxInlineDataBytes + 1, 'e')}) {
    CreateDataRequest in{UINT64_MAX, std::string(255, 'n'), DataStat(data.size()), data};
    std::string frame;
    EncodeCreateData(in, 21, &frame);
    CreateDataRequest out{1, "left", FileStat(), "over"};
    ASSERT_TRUE(DecodeCreateData(BodyOf(frame, MsgType::kCreateData, 21), &out)) << data.size();
    EXPECT_EQ(out.dir_id, in.dir_id);
    EXPECT_EQ(out.name, in.name);
    EXPECT_EQ(out.stat, in.stat);
    EXPECT_EQ(out.data, in.data);
  }
}

TEST(WireTest, ReadDataAndDeleteRoundTrip) {
  NameRequest in{0x0102030405060708, std::string("a\0b", 3)};
  std::string frame;
  EncodeReadData(in, 22, &frame);
  NameRequest out{1, "left over"};
  ASSERT_TRUE(DecodeReadData(BodyOf(frame, MsgType::kReadData, 22), &out));
  EXPECT_EQ(out.dir_id, in.dir_id);
  EXPECT_EQ(out.name, in.name);
  EncodeDelete(in, 23, &frame);
  NameRequest del{1, "left over"};
  ASSERT_TRUE(DecodeDelete(BodyOf(frame, MsgType::kDelete, 23), &del));
  EXPECT_EQ(del.dir_id, in.dir_id);
  EXPECT_EQ(del.name, in.name);
}

TEST(WireTest, DataRepliesRoundTrip) {
  std::string frame;
  for (OpStatus status : {OpStatus::kOk, OpStatus::kExists, OpStatus::kReadOnly, OpStatus::kTooLarge}) {
    EncodeCreateDataReply(CreateDataReply{status, kMaxInlineDataBytes}, 24, &frame);
    CreateDataReply out{OpStatus::kIoError, 1};
    ASSERT_TRUE(DecodeCreateDataReply(BodyOf(frame, MsgType::kCreateDataReply, 24), &out));
    EXPECT_EQ(out.status, status);
    EXPECT_EQ(out.inline_data_max, kMaxInlineDataBytes);
  }
  const std::string data(3901, 'q');
  EncodeReadDataReply(ReadDataReply{OpStatus::kOk, DataStat(data.size()), data}, 25, &frame);
  ReadDataReply got{OpStatus::kIoError, FileStat(), "left over"};
  ASSERT_TRUE(DecodeReadDataReply(BodyOf(frame, MsgType::kReadDataReply, 25), &got));
  EXPECT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.stat, DataStat(data.size()));
  EXPECT_EQ(got.data, data);
  EncodeReadDataReply(OpStatus::kNotFound, FileStat(), "", 26, &frame);
  ASSERT_TRUE(DecodeReadDataReply(BodyOf(frame, MsgType::kReadDataReply, 26), &got));
  EXPECT_EQ(got.status, OpStatus::kNotFound);
  EXPECT_TRUE(got.data.empty());
  for (OpStatus status : {OpStatus::kOk, OpStatus::kNotFound, OpStatus::kReadOnly}) {
    EncodeDeleteReply(status, 27, &frame);
    OpStatus out = OpStatus::kIoError;
    ASSERT_TRUE(DecodeDeleteReply(BodyOf(frame, MsgType::kDeleteReply, 27), &out));
    EXPECT_EQ(out, status);
  }
}

TEST(WireTest, HeaderRejectsBadMagic) {
  std::string frame;
  EncodeInfo(1, &frame);
  FrameHeader h;
  for (size_t i : {0, 1}) {
    std::string bad = frame;
    bad[i] = 'X';
    EXPECT_EQ(ParseFrameHeader(bad.data(), &h), HeaderError::kBadMagic);
  }
}

TEST(WireTest, HeaderRejectsBadVersion) {
  std::string frame;
  EncodeInfo(1, &frame);
  FrameHeader h;
  for (int v : {0, kWireVersion + 1, 0xff}) {
    frame[2] = static_cast<char>(v);
    EXPECT_EQ(ParseFrameHeader(frame.data(), &h), HeaderError::kBadVersion) << "version " << v;
  }
}

TEST(WireTest, HeaderAcceptsExactlyTheKnownTypes) {
  const std::vector<int> known = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0x81, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a};
  std::string frame;
  EncodeInfo(1, &frame);
  for (int t = 0; t < 256; t++) {
    frame[3] = static_cast<char>(t);
    FrameHeader h;
    bool is_known = std::find(known.begin(), known.end(), t) != known.end();
    EXPECT_EQ(ParseFrameHeader(frame.data(), &h), is_known ? HeaderError::kNone : HeaderError::kUnknownType)
        << "type " << t;
    if (is_known) {
      EXPECT_EQ(static_cast<int>(h.type), t);
    }
  }
}

TEST(WireTest, HeaderRejectsBodyOverLimit) {
  std::string frame;
  EncodeInfo(1, &frame);
  FrameHeader h;
  const uint32_t lengths[] = {kMaxFrameBodyBytes, kMaxFrameBodyBytes + 1, UINT32_MAX};
  const HeaderError want[] = {HeaderError::kNone, HeaderError::kTooLarge, HeaderError::kTooLarge};
  for (int i = 0; i < 3; i++) {
    for (int b = 0; b < 4; b++) frame[4 + b] = static_cast<char>(lengths[i] >> (8 * b));
    EXPECT_EQ(ParseFrameHeader(frame.data(), &h), want[i]) << "length " << lengths[i];
    if (want[i] == HeaderError::kNone) {
      EXPECT_EQ(h.body_bytes, lengths[i]);
    }
  }
}

}  // namespace
}  // namespace deltameta
