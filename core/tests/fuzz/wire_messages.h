// The wire messages the fuzz target (wire_fuzz.cc) and its seed corpus (wire_seeds.cc)
// know: for each message type a codec that decodes a body and, if it is accepted, encodes
// the message again; and sample frames, the messages of unit/wire_test.cc and
// unit/wire_decode_test.cc. A new message type is one line in WireCodecs() and one in
// SampleFrames(); wire_seeds fails if a type ParseFrameHeader accepts lacks either.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/wire.h"

namespace deltameta::fuzz {

// Decodes `body`; if it is accepted, replaces *frame with the decoded message encoded again.
using Reencoder = bool (*)(std::string_view body, uint32_t seq, std::string* frame);

template <typename M, auto Decode, auto Encode>
bool Reencode(std::string_view body, uint32_t seq, std::string* frame) {
  M m{};
  if (!Decode(body, &m)) return false;
  Encode(m, seq, frame);
  return true;
}

inline bool ReencodeInfo(std::string_view body, uint32_t seq, std::string* frame) {
  if (!DecodeInfo(body)) return false;
  EncodeInfo(seq, frame);
  return true;
}

// EncodeReadDataReply is overloaded (the server's form takes the stat and data apart).
inline bool ReencodeReadDataReply(std::string_view body, uint32_t seq, std::string* frame) {
  ReadDataReply m;
  if (!DecodeReadDataReply(body, &m)) return false;
  EncodeReadDataReply(m, seq, frame);
  return true;
}

struct WireCodec {
  MsgType type;
  const char* name;
  Reencoder reencode;
};

inline const std::vector<WireCodec>& WireCodecs() {
  static const std::vector<WireCodec> codecs = {
      {MsgType::kCreate, "Create", Reencode<CreateRequest, DecodeCreate, EncodeCreate>},
      {MsgType::kLstat, "Lstat", Reencode<LstatRequest, DecodeLstat, EncodeLstat>},
      {MsgType::kIngest, "Ingest", Reencode<IngestRequest, DecodeIngest, EncodeIngest>},
      {MsgType::kInfo, "Info", ReencodeInfo},
      {MsgType::kStats, "Stats", Reencode<StatsRequest, DecodeStats, EncodeStats>},
      {MsgType::kAttachShm, "AttachShm", Reencode<int, DecodeAttachShm, EncodeAttachShm>},
      {MsgType::kHello, "Hello", Reencode<std::string_view, DecodeHello, EncodeHello>},
      {MsgType::kStatReply, "StatReply", Reencode<StatReply, DecodeStatReply, EncodeStatReply>},
      {MsgType::kIngestReply, "IngestReply", Reencode<IngestReply, DecodeIngestReply, EncodeIngestReply>},
      {MsgType::kInfoReply, "InfoReply", Reencode<InfoReply, DecodeInfoReply, EncodeInfoReply>},
      {MsgType::kStatsReply, "StatsReply", Reencode<StatsReply, DecodeStatsReply, EncodeStatsReply>},
      {MsgType::kAttachShmReply, "AttachShmReply", Reencode<OpStatus, DecodeAttachShmReply, EncodeAttachShmReply>},
      {MsgType::kHelloReply, "HelloReply", Reencode<OpStatus, DecodeHelloReply, EncodeHelloReply>},
      {MsgType::kCreateData, "CreateData", Reencode<CreateDataRequest, DecodeCreateData, EncodeCreateData>},
      {MsgType::kReadData, "ReadData", Reencode<NameRequest, DecodeReadData, EncodeReadData>},
      {MsgType::kDelete, "Delete", Reencode<NameRequest, DecodeDelete, EncodeDelete>},
      {MsgType::kCreateDataReply, "CreateDataReply",
       Reencode<CreateDataReply, DecodeCreateDataReply, EncodeCreateDataReply>},
      {MsgType::kReadDataReply, "ReadDataReply", ReencodeReadDataReply},
      {MsgType::kDeleteReply, "DeleteReply", Reencode<OpStatus, DecodeDeleteReply, EncodeDeleteReply>},
  };
  return codecs;
}

// The codec of `type`, or nullptr.
inline const WireCodec* FindCodec(MsgType type) {
  for (const WireCodec& c : WireCodecs()) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

inline FileStat ExtremeStat() {  // unit/wire_test.cc
  FileStat s;
  s.ino = UINT64_MAX;
  s.mode = 0100644;
  s.uid = UINT32_MAX;
  s.size = uint64_t{1} << 63;
  s.mtime_us = 1;
  s.ctime_us = UINT64_MAX - 1;
  return s;
}

inline FileStat SizedStat(FileStat s, uint64_t size) {  // a data create's stat: its size is the data's
  s.size = size;
  return s;
}

inline FileStat SomeStat() {  // unit/wire_decode_test.cc
  FileStat s;
  s.ino = 12345;
  s.mode = 0100644;
  s.uid = s.gid = 1000;
  s.size = 4096;
  s.mtime_us = 1700000000000000;
  s.ctime_us = 1700000000000001;
  return s;
}

// Complete frames (header and body) of well-formed messages, several per type.
inline std::vector<std::string> SampleFrames() {
  std::vector<std::string> f;
  auto next = [&f] { return &f.emplace_back(); };
  EncodeCreate(CreateRequest{UINT64_MAX, std::string(255, 'n'), ExtremeStat()}, UINT32_MAX, next());
  EncodeCreate(CreateRequest{7, "f3.1a2b", SomeStat()}, 1, next());
  EncodeCreate(CreateRequest{1, "n", FileStat()}, 2, next());
  EncodeLstat(LstatRequest{0x0102030405060708, std::string("a\0b", 3)}, 0, next());
  EncodeLstat(LstatRequest{7, "f3.1a2b"}, 1, next());
  EncodeIngest(IngestRequest{{"/x/000001.sst", std::string(kMaxPathBytes, 'p'), "t"}}, 7, next());
  EncodeIngest(IngestRequest{{"/t/000001.sst", "/t/000002.sst"}}, 1, next());
  EncodeInfo(42, next());
  EncodeStats(StatsRequest{false}, 3, next());
  EncodeStats(StatsRequest{true}, 3, next());
  for (int cpu : {-1, 0, 7, 1 << 16}) EncodeAttachShm(cpu, 12, next());
  EncodeStatReply(StatReply{OpStatus::kOk, ExtremeStat()}, 9, next());
  EncodeStatReply(StatReply{OpStatus::kNotFound, SomeStat()}, 1, next());
  EncodeIngestReply(IngestReply{OpStatus::kIoError, "boom"}, 11, next());
  EncodeIngestReply(IngestReply{OpStatus::kOk, ""}, 11, next());
  EncodeInfoReply(InfoReply{3, {"h0:1", "h0:2", "h0:3", "host-1.example:65535", "h1:2", std::string(255, 'h')}}, 5,
                  next());
  EncodeInfoReply(InfoReply{2, {"h0:1", "h0:2", "h1:1", "h1:2"}}, 1, next());
  EncodeStatsReply(StatsReply{UINT64_MAX, uint64_t{1} << 40, true}, 6, next());
  EncodeStatsReply(StatsReply{123, 456, false}, 1, next());
  EncodeAttachShmReply(OpStatus::kOk, 13, next());
  EncodeAttachShmReply(OpStatus::kUnsupported, 13, next());
  EncodeHello(std::string(kHelloSecretBytes, '\xa5'), 14, next());  // unit/wire_test.cc
  EncodeHelloReply(OpStatus::kOk, 15, next());
  EncodeHelloReply(OpStatus::kBadSecret, 15, next());
  // unit/wire_test.cc and unit/wire_decode_test.cc
  EncodeCreateData(CreateDataRequest{7, "o3.1.1a", SizedStat(SomeStat(), 5), "12345"}, 21, next());
  EncodeCreateData(CreateDataRequest{UINT64_MAX, std::string(255, 'n'), SizedStat(ExtremeStat(), 0), ""}, 21, next());
  EncodeCreateData(CreateDataRequest{1, "o", SizedStat(FileStat(), 3), std::string("\0x\xff", 3)}, 21, next());
  EncodeReadData(NameRequest{7, "o3.1.1a"}, 22, next());
  EncodeReadData(NameRequest{0x0102030405060708, std::string("a\0b", 3)}, 22, next());
  EncodeDelete(NameRequest{7, "o3.1.1a"}, 23, next());
  EncodeCreateDataReply(CreateDataReply{OpStatus::kOk, kMaxInlineDataBytes}, 24, next());
  EncodeCreateDataReply(CreateDataReply{OpStatus::kTooLarge, 4096}, 24, next());
  EncodeReadDataReply(ReadDataReply{OpStatus::kOk, SizedStat(SomeStat(), 3), "abc"}, 25, next());
  EncodeReadDataReply(ReadDataReply{OpStatus::kNotFound, FileStat(), ""}, 25, next());
  EncodeDeleteReply(OpStatus::kOk, 27, next());
  EncodeDeleteReply(OpStatus::kNotFound, 27, next());
  return f;
}

}  // namespace deltameta::fuzz
