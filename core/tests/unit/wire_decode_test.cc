// Tests wire.h body decoders: every malformed body is rejected, and random bodies never crash.
#include <functional>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "format/wire.h"

namespace deltameta {
namespace {

// Decodes a body; on success re-encodes the message and returns the new body in *reencoded.
using Codec = std::function<bool(std::string_view body, std::string* reencoded)>;

template <typename M>
Codec MakeCodec(bool (*decode)(std::string_view, M*), void (*encode)(const M&, uint32_t, std::string*)) {
  return [=](std::string_view body, std::string* reencoded) {
    M m;
    if (!decode(body, &m)) return false;
    encode(m, 0, reencoded);
    reencoded->erase(0, kFrameHeaderBytes);
    return true;
  };
}

bool InfoCodec(std::string_view body, std::string* reencoded) {
  if (!DecodeInfo(body)) return false;
  EncodeInfo(0, reencoded);
  reencoded->erase(0, kFrameHeaderBytes);
  return true;
}

template <typename M>
std::string BodyOf(void (*encode)(const M&, uint32_t, std::string*), const M& m) {
  std::string frame;
  encode(m, 1, &frame);
  return frame.substr(kFrameHeaderBytes);
}

FileStat SomeStat() {
  FileStat s;
  s.ino = 12345;
  s.mode = 0100644;
  s.uid = 1000;
  s.gid = 1000;
  s.size = 4096;
  s.mtime_us = 1700000000000000;
  s.ctime_us = 1700000000000001;
  return s;
}

FileStat DataStat(uint64_t size) {
  FileStat s = SomeStat();
  s.size = size;
  return s;
}

// Replies that are a status alone (their encoders take the status, not a struct).
Codec MakeStatusCodec(bool (*decode)(std::string_view, OpStatus*), void (*encode)(OpStatus, uint32_t, std::string*)) {
  return [=](std::string_view body, std::string* reencoded) {
    OpStatus s;
    if (!decode(body, &s)) return false;
    encode(s, 0, reencoded);
    reencoded->erase(0, kFrameHeaderBytes);
    return true;
  };
}

std::string StatusBody(void (*encode)(OpStatus, uint32_t, std::string*), OpStatus s) {
  std::string frame;
  encode(s, 1, &frame);
  return frame.substr(kFrameHeaderBytes);
}

struct Case {
  const char* name;
  std::string body;  // a valid body
  Codec codec;
};

std::vector<Case> ValidCases() {
  return {
      {"Create", BodyOf(EncodeCreate, CreateRequest{7, "f3.1a2b", SomeStat()}), MakeCodec(DecodeCreate, EncodeCreate)},
      {"Lstat", BodyOf(EncodeLstat, LstatRequest{7, "f3.1a2b"}), MakeCodec(DecodeLstat, EncodeLstat)},
      {"Ingest", BodyOf(EncodeIngest, IngestRequest{{"/t/000001.sst", "/t/000002.sst"}}),
       MakeCodec(DecodeIngest, EncodeIngest)},
      {"Info", "", InfoCodec},
      {"Stats", BodyOf(EncodeStats, StatsRequest{true}), MakeCodec(DecodeStats, EncodeStats)},
      {"StatReply", BodyOf(EncodeStatReply, StatReply{OpStatus::kNotFound, SomeStat()}),
       MakeCodec(DecodeStatReply, EncodeStatReply)},
      {"IngestReply", BodyOf(EncodeIngestReply, IngestReply{OpStatus::kIoError, "boom"}),
       MakeCodec(DecodeIngestReply, EncodeIngestReply)},
      {"InfoReply", BodyOf(EncodeInfoReply, InfoReply{2, {"h0:1", "h0:2", "h1:1", "h1:2"}}),
       MakeCodec(DecodeInfoReply, EncodeInfoReply)},
      {"StatsReply", BodyOf(EncodeStatsReply, StatsReply{123, 456, true}),
       MakeCodec(DecodeStatsReply, EncodeStatsReply)},
      {"CreateData", BodyOf(EncodeCreateData, CreateDataRequest{7, "o3.1.1a", DataStat(5), "12345"}),
       MakeCodec(DecodeCreateData, EncodeCreateData)},
      {"ReadData", BodyOf(EncodeReadData, NameRequest{7, "o3.1.1a"}), MakeCodec(DecodeReadData, EncodeReadData)},
      {"Delete", BodyOf(EncodeDelete, NameRequest{7, "o3.1.1a"}), MakeCodec(DecodeDelete, EncodeDelete)},
      {"CreateDataReply", BodyOf(EncodeCreateDataReply, CreateDataReply{OpStatus::kTooLarge, 4096}),
       MakeCodec(DecodeCreateDataReply, EncodeCreateDataReply)},
      {"ReadDataReply", BodyOf(EncodeReadDataReply, ReadDataReply{OpStatus::kOk, DataStat(3), "abc"}),
       MakeCodec(DecodeReadDataReply, EncodeReadDataReply)},
      {"DeleteReply", StatusBody(EncodeDeleteReply, OpStatus::kNotFound),
       MakeStatusCodec(DecodeDeleteReply, EncodeDeleteReply)},
  };
}

bool Accepts(const Codec& codec, std::string_view body) {
  std::string reencoded;
  return codec(body, &reencoded);
}

TEST(WireDecodeTest, ValidBodiesReencodeIdentically) {
  for (const Case& c : ValidCases()) {
    std::string reencoded;
    ASSERT_TRUE(c.codec(c.body, &reencoded)) << c.name;
    EXPECT_EQ(reencoded, c.body) << c.name;
  }
}

TEST(WireDecodeTest, RejectsEveryTruncation) {
  for (const Case& c : ValidCases()) {
    for (size_t n = 0; n < c.body.size(); n++) {
      EXPECT_FALSE(Accepts(c.codec, std::string_view(c.body).substr(0, n))) << c.name << " prefix " << n;
    }
  }
}

TEST(WireDecodeTest, RejectsTrailingGarbage) {
  for (const Case& c : ValidCases()) {
    EXPECT_FALSE(Accepts(c.codec, c.body + '\0')) << c.name;
    EXPECT_FALSE(Accepts(c.codec, c.body + "garbage")) << c.name;
  }
}

TEST(WireDecodeTest, RejectsBadNames) {
  CreateRequest m;
  LstatRequest l;
  for (const std::string& name : {std::string(), std::string(256, 'n'), std::string(4000, 'n')}) {
    EXPECT_FALSE(DecodeCreate(BodyOf(EncodeCreate, CreateRequest{1, name, SomeStat()}), &m)) << name.size();
    EXPECT_FALSE(DecodeLstat(BodyOf(EncodeLstat, LstatRequest{1, name}), &l)) << name.size();
  }
  EXPECT_TRUE(DecodeCreate(BodyOf(EncodeCreate, CreateRequest{1, std::string(255, 'n'), SomeStat()}), &m));
  EXPECT_TRUE(DecodeLstat(BodyOf(EncodeLstat, LstatRequest{1, std::string(255, 'n')}), &l));
}

TEST(WireDecodeTest, RejectsStatOfWrongVersionInCreate) {
  std::string body = BodyOf(EncodeCreate, CreateRequest{1, "name", SomeStat()});
  const size_t version_at = 8 + 2 + 4;
  ASSERT_EQ(static_cast<uint8_t>(body[version_at]), kStatFormatVersion);
  CreateRequest m;
  for (int v : {0, kStatFormatVersion + 1, 0xff}) {
    body[version_at] = static_cast<char>(v);
    EXPECT_FALSE(DecodeCreate(body, &m)) << "version " << v;
  }
  std::string reply = BodyOf(EncodeStatReply, StatReply{OpStatus::kOk, SomeStat()});
  reply[1] = 0;
  StatReply r;
  EXPECT_FALSE(DecodeStatReply(reply, &r));
}

TEST(WireDecodeTest, RejectsBadIngestPathLists) {
  IngestRequest m;
  EXPECT_FALSE(DecodeIngest(BodyOf(EncodeIngest, IngestRequest{}), &m));
  const std::vector<std::string> most(kMaxListEntries, "t"), too_many(kMaxListEntries + 1, "t");
  EXPECT_TRUE(DecodeIngest(BodyOf(EncodeIngest, IngestRequest{most}), &m));
  EXPECT_FALSE(DecodeIngest(BodyOf(EncodeIngest, IngestRequest{too_many}), &m));
  EXPECT_FALSE(DecodeIngest(BodyOf(EncodeIngest, IngestRequest{{"a", ""}}), &m));
  EXPECT_FALSE(DecodeIngest(BodyOf(EncodeIngest, IngestRequest{{std::string(kMaxPathBytes + 1, 'p')}}), &m));
  std::string huge_count = BodyOf(EncodeIngest, IngestRequest{{"a"}});
  huge_count.replace(0, 4, "\xff\xff\xff\xff");
  EXPECT_FALSE(DecodeIngest(huge_count, &m));
}

TEST(WireDecodeTest, RejectsInvalidStatus) {
  std::string stat_reply = BodyOf(EncodeStatReply, StatReply{OpStatus::kOk, SomeStat()});
  std::string ingest_reply = BodyOf(EncodeIngestReply, IngestReply{OpStatus::kOk, ""});
  StatReply s;
  IngestReply i;
  for (int status : {static_cast<int>(OpStatus::kBadSecret), static_cast<int>(OpStatus::kBadSecret) + 1, 0x80, 0xff}) {
    stat_reply[0] = ingest_reply[0] = static_cast<char>(status);
    EXPECT_FALSE(DecodeStatReply(stat_reply, &s)) << "status " << status;
    EXPECT_FALSE(DecodeIngestReply(ingest_reply, &i)) << "status " << status;
  }
}

TEST(WireDecodeTest, RejectsBadInfoReply) {
  InfoReply m;
  EXPECT_FALSE(DecodeInfoReply(BodyOf(EncodeInfoReply, InfoReply{0, {"h0:1"}}), &m));
  EXPECT_FALSE(DecodeInfoReply(BodyOf(EncodeInfoReply, InfoReply{2, {"h0:1", "h0:2", "h1:1"}}), &m));
  EXPECT_FALSE(DecodeInfoReply(BodyOf(EncodeInfoReply, InfoReply{1, {}}), &m));
  const std::vector<std::string> too_many(kMaxListEntries + 1, "h:1");
  EXPECT_FALSE(DecodeInfoReply(BodyOf(EncodeInfoReply, InfoReply{1, too_many}), &m));
  EXPECT_FALSE(DecodeInfoReply(BodyOf(EncodeInfoReply, InfoReply{1, {std::string(256, 'h')}}), &m));
  EXPECT_TRUE(DecodeInfoReply(BodyOf(EncodeInfoReply, InfoReply{3, {"h0:1", "h0:2", "h0:3"}}), &m));
}

TEST(WireDecodeTest, RejectsBoolByteOverOne) {
  StatsRequest req;
  StatsReply reply;
  for (int b : {2, 0x80, 0xff}) {
    EXPECT_FALSE(DecodeStats(std::string(1, static_cast<char>(b)), &req)) << b;
    std::string body = BodyOf(EncodeStatsReply, StatsReply{1, 2, false});
    body[body.size() - 2] = static_cast<char>(b);  // the read-only flag
    EXPECT_FALSE(DecodeStatsReply(body, &reply)) << b;
  }
  for (int b : {8, 0x80, 0xff}) {  // the status: not an OpStatus
    std::string body = BodyOf(EncodeStatsReply, StatsReply{1, 2, false});
    body.back() = static_cast<char>(b);
    EXPECT_FALSE(DecodeStatsReply(body, &reply)) << b;
  }
}

TEST(WireDecodeTest, RejectsDataCreateWhoseSizeIsNotItsData) {
  CreateDataRequest m;
  EXPECT_TRUE(DecodeCreateData(BodyOf(EncodeCreateData, CreateDataRequest{1, "o", DataStat(3), "abc"}), &m));
  for (uint64_t size : {uint64_t{0}, uint64_t{2}, uint64_t{4}, UINT64_MAX}) {
    EXPECT_FALSE(DecodeCreateData(BodyOf(EncodeCreateData, CreateDataRequest{1, "o", DataStat(size), "abc"}), &m))
        << size;
  }
  for (const std::string& name : {std::string(), std::string(256, 'n')}) {
    EXPECT_FALSE(DecodeCreateData(BodyOf(EncodeCreateData, CreateDataRequest{1, name, DataStat(1), "a"}), &m));
    NameRequest n;
    EXPECT_FALSE(DecodeReadData(BodyOf(EncodeReadData, NameRequest{1, name}), &n));
    EXPECT_FALSE(DecodeDelete(BodyOf(EncodeDelete, NameRequest{1, name}), &n));
  }
}

TEST(WireDecodeTest, RejectsDataLengthOverTheBody) {
  std::string body = BodyOf(EncodeCreateData, CreateDataRequest{1, "o", DataStat(3), "abc"});
  const size_t length_at = body.size() - 3 - 4;
  CreateDataRequest m;
  for (uint32_t len : {4u, 0x10000u, 0xffffffffu}) {
    std::string bad = body;
    for (int b = 0; b < 4; b++) bad[length_at + b] = static_cast<char>(len >> (8 * b));
    EXPECT_FALSE(DecodeCreateData(bad, &m)) << len;
  }
  std::string reply = BodyOf(EncodeReadDataReply, ReadDataReply{OpStatus::kOk, DataStat(3), "abc"});
  reply[reply.size() - 3 - 4] = 9;  // announces 9 bytes, holds 3
  ReadDataReply r;
  EXPECT_FALSE(DecodeReadDataReply(reply, &r));
}

TEST(WireDecodeTest, RejectsBadDataReplies) {
  CreateDataReply c;
  EXPECT_TRUE(DecodeCreateDataReply(BodyOf(EncodeCreateDataReply, CreateDataReply{OpStatus::kOk, 0}), &c));
  EXPECT_FALSE(DecodeCreateDataReply(
      BodyOf(EncodeCreateDataReply, CreateDataReply{OpStatus::kOk, kMaxInlineDataBytes + 1}), &c));
  for (OpStatus bad : {OpStatus::kBadSecret, static_cast<OpStatus>(10), static_cast<OpStatus>(0xff)}) {
    EXPECT_FALSE(DecodeCreateDataReply(BodyOf(EncodeCreateDataReply, CreateDataReply{bad, 1}), &c));
  }
  // kTooLarge answers only a data create.
  ReadDataReply r;
  OpStatus s;
  EXPECT_FALSE(DecodeReadDataReply(BodyOf(EncodeReadDataReply, ReadDataReply{OpStatus::kTooLarge, {}, ""}), &r));
  EXPECT_FALSE(DecodeDeleteReply(StatusBody(EncodeDeleteReply, OpStatus::kTooLarge), &s));
  EXPECT_FALSE(DecodeDeleteReply(StatusBody(EncodeDeleteReply, OpStatus::kBadSecret), &s));
  StatReply sr;
  EXPECT_FALSE(DecodeStatReply(BodyOf(EncodeStatReply, StatReply{OpStatus::kTooLarge, SomeStat()}), &sr));
  // Data only with kOk.
  EXPECT_FALSE(DecodeReadDataReply(BodyOf(EncodeReadDataReply, ReadDataReply{OpStatus::kNotFound, {}, "x"}), &r));
  EXPECT_TRUE(DecodeReadDataReply(BodyOf(EncodeReadDataReply, ReadDataReply{OpStatus::kNotFound, {}, ""}), &r));
}

// Random and mutated bodies must never crash a decoder, and whatever a decoder accepts
// must be canonical: encoding the decoded message gives back the same bytes.
TEST(WireDecodeTest, FuzzRandomBodies) {
  std::mt19937 rng(20240601);
  auto byte = [&] { return static_cast<char>(rng() & 0xff); };
  for (const Case& c : ValidCases()) {
    int accepted = 0;
    for (int i = 0; i < 20000; i++) {
      std::string body;
      if (i % 2 == 0) {
        body.resize(rng() % (2 * c.body.size() + 16));
        for (char& b : body) b = byte();
      } else {
        body = c.body;
        for (int m = 1 + rng() % 3; m > 0; m--) {
          size_t at = body.empty() ? 0 : rng() % body.size();
          switch (rng() % 3) {
            case 0:
              if (!body.empty()) body[at] = byte();
              break;
            case 1:
              body.resize(at);
              break;
            case 2:
              body.insert(body.begin() + at, byte());
              break;
          }
        }
      }
      std::string reencoded;
      if (c.codec(body, &reencoded)) {
        accepted++;
        ASSERT_EQ(reencoded, body) << c.name << " iteration " << i;
      }
    }
    RecordProperty(std::string(c.name) + "_accepted", accepted);
  }
}

}  // namespace
}  // namespace deltameta
