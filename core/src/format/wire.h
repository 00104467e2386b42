// The client-server wire format. Every message is one frame: a 12-byte header
//   'D' 'M' | version u8 | type u8 | body length u32 LE | sequence number u32 LE
// followed by the body. Bodies are fixed-order fields: integers little-endian, strings as
// a u16 LE length and bytes. A decoder accepts a body only if every field is present,
// every length is within its limit and no byte is left over.
//
// The first frame on every connection is a hello carrying the job's secret (secret.h); a
// server serves nothing else on a connection until the hello's secret matched its own.
//
// Objects with data (the MD-Workbench tool, mdworkbench/): a data create carries the stat
// and the object's bytes, which the server keeps inline with the metadata (the entry's
// value is the encoded stat followed by the data); a data read returns both; a delete
// removes the entry. An lstat of an entry with data returns only its stat.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "deltameta/stat_codec.h"

namespace deltameta {

constexpr uint8_t kWireVersion = 5;
constexpr size_t kFrameHeaderBytes = 12;
constexpr uint32_t kMaxFrameBodyBytes = 1 << 20;
constexpr size_t kMaxPathBytes = 4096;
constexpr uint32_t kMaxListEntries = 4096;
// The most data bytes any server keeps inline with an entry: its value (encoded stat and
// data) must fit an entry record (entry_record.h), which the DeltaFS compaction carries.
// A data create may carry more (up to the frame limit); the server then refuses it with
// kTooLarge, naming its own limit (deltameta_server --inline_data_max, at most this).
constexpr uint32_t kMaxInlineDataBytes = 0xffff - kMaxEncodedStatBytes;

enum class MsgType : uint8_t {
  kCreate = 1,      // CreateRequest -> StatReply
  kLstat = 2,       // LstatRequest -> StatReply
  kIngest = 3,      // IngestRequest -> IngestReply
  kInfo = 4,        // (empty) -> InfoReply
  kStats = 5,       // StatsRequest -> StatsReply
  kAttachShm = 6,   // client CPU -> AttachShmReply; over a same-host socket (shm_channel.h)
  kHello = 7,       // the secret (kHelloSecretBytes) -> HelloReply; first on every connection
  kCreateData = 8,  // CreateDataRequest -> CreateDataReply
  kReadData = 9,    // NameRequest -> ReadDataReply
  kDelete = 10,     // NameRequest -> DeleteReply (a status)
  kStatReply = 0x81,
  kIngestReply = 0x83,
  kInfoReply = 0x84,
  kStatsReply = 0x85,
  kAttachShmReply = 0x86,
  kHelloReply = 0x87,
  kCreateDataReply = 0x88,
  kReadDataReply = 0x89,
  kDeleteReply = 0x8a,
};

// A hello's body: exactly the secret's bytes (secret.h's kSecretBytes).
constexpr uint32_t kHelloSecretBytes = 32;

// Operation outcome carried by replies.
enum class OpStatus : uint8_t {
  kOk = 0,
  kExists = 1,
  kNotFound = 2,
  kReadOnly = 3,
  kIoError = 4,
  kWrongServer = 5,  // the name belongs to another partition
  kUnsupported = 6,  // the server cannot do this on this connection
  kRefused = 7,      // the request names something the server may not touch (ingest checks)
  kBadSecret = 8,    // a hello whose secret is not the server's (HelloReply); the server closes
  kTooLarge = 9,     // a data create over the server's inline limit (CreateDataReply only)
};
const char* OpStatusName(OpStatus s);

struct FrameHeader {
  MsgType type = MsgType::kInfo;
  uint32_t body_bytes = 0;
  uint32_t seq = 0;
};

enum class HeaderError { kNone, kBadMagic, kBadVersion, kUnknownType, kTooLarge };
const char* HeaderErrorName(HeaderError e);

// Parses the kFrameHeaderBytes at `in`.
HeaderError ParseFrameHeader(const char* in, FrameHeader* h);

struct CreateRequest {
  uint64_t dir_id = 0;
  std::string name;
  FileStat stat;
};
struct LstatRequest {
  uint64_t dir_id = 0;
  std::string name;
};
struct IngestRequest {
  std::vector<std::string> table_paths;
};
struct StatsRequest {
  bool count_entries = false;
};
// A data create: the stat's size must equal the data's length.
struct CreateDataRequest {
  uint64_t dir_id = 0;
  std::string name;
  FileStat stat;
  std::string data;  // u32 LE length and bytes on the wire; bounded by the frame
};
// A data read or a delete: the name alone.
struct NameRequest {
  uint64_t dir_id = 0;
  std::string name;
};
struct CreateDataReply {
  OpStatus status = OpStatus::kOk;  // kTooLarge: the data is over the server's limit
  uint32_t inline_data_max = 0;     // the server's limit (at most kMaxInlineDataBytes)
};
struct ReadDataReply {
  OpStatus status = OpStatus::kOk;
  FileStat stat;
  std::string data;  // empty unless kOk (an entry created without data has none)
};
struct StatReply {
  OpStatus status = OpStatus::kOk;
  FileStat stat;
};
struct IngestReply {
  OpStatus status = OpStatus::kOk;
  std::string message;  // empty on success
};
struct InfoReply {
  uint32_t ports_per_rank = 1;
  std::vector<std::string> addresses;  // "host:port", rank-major: rank r, port p at r*ports_per_rank+p
};
struct StatsReply {
  uint64_t cpu_micros = 0;  // the server process's user + system CPU time so far
  uint64_t entries = 0;     // entries in the store (only if counted)
  bool read_only = false;
  OpStatus status = OpStatus::kOk;  // kIoError: the entries could not all be read (the server logs why)
};

// Each Encode* replaces *frame with one complete frame (header and body).
void EncodeCreate(const CreateRequest& m, uint32_t seq, std::string* frame);
void EncodeLstat(const LstatRequest& m, uint32_t seq, std::string* frame);
void EncodeIngest(const IngestRequest& m, uint32_t seq, std::string* frame);
void EncodeInfo(uint32_t seq, std::string* frame);
void EncodeStats(const StatsRequest& m, uint32_t seq, std::string* frame);
// `cpu`: the one CPU the client is pinned to, or -1 (cpu_placement.h).
void EncodeAttachShm(int cpu, uint32_t seq, std::string* frame);
// `secret`: kHelloSecretBytes bytes.
void EncodeHello(std::string_view secret, uint32_t seq, std::string* frame);
void EncodeStatReply(const StatReply& m, uint32_t seq, std::string* frame);
void EncodeIngestReply(const IngestReply& m, uint32_t seq, std::string* frame);
void EncodeInfoReply(const InfoReply& m, uint32_t seq, std::string* frame);
void EncodeStatsReply(const StatsReply& m, uint32_t seq, std::string* frame);
// kOk: the two descriptors of the channel travel with the reply (shm_channel.h).
void EncodeAttachShmReply(OpStatus status, uint32_t seq, std::string* frame);
// kOk: the secret matched; kBadSecret: it did not.
void EncodeHelloReply(OpStatus status, uint32_t seq, std::string* frame);
void EncodeCreateData(const CreateDataRequest& m, uint32_t seq, std::string* frame);
void EncodeReadData(const NameRequest& m, uint32_t seq, std::string* frame);
void EncodeDelete(const NameRequest& m, uint32_t seq, std::string* frame);
void EncodeCreateDataReply(const CreateDataReply& m, uint32_t seq, std::string* frame);
// `stat` and `data` as separate views, so a server can reply from the stored value.
void EncodeReadDataReply(OpStatus status, const FileStat& stat, std::string_view data, uint32_t seq,
                         std::string* frame);
void EncodeReadDataReply(const ReadDataReply& m, uint32_t seq, std::string* frame);
void EncodeDeleteReply(OpStatus status, uint32_t seq, std::string* frame);

// Each Decode* parses a body (without header); false if it is malformed in any way.
bool DecodeCreate(std::string_view body, CreateRequest* m);
bool DecodeLstat(std::string_view body, LstatRequest* m);
bool DecodeIngest(std::string_view body, IngestRequest* m);
bool DecodeInfo(std::string_view body);
bool DecodeStats(std::string_view body, StatsRequest* m);
bool DecodeAttachShm(std::string_view body, int* cpu);
// *secret views the body.
bool DecodeHello(std::string_view body, std::string_view* secret);
bool DecodeStatReply(std::string_view body, StatReply* m);
bool DecodeIngestReply(std::string_view body, IngestReply* m);
bool DecodeInfoReply(std::string_view body, InfoReply* m);
bool DecodeStatsReply(std::string_view body, StatsReply* m);
bool DecodeAttachShmReply(std::string_view body, OpStatus* status);
bool DecodeHelloReply(std::string_view body, OpStatus* status);
// Refused: a name outside 1..kMaxNameBytes, a data length over what the body holds, a
// stat whose size is not the data's length.
bool DecodeCreateData(std::string_view body, CreateDataRequest* m);
bool DecodeReadData(std::string_view body, NameRequest* m);
bool DecodeDelete(std::string_view body, NameRequest* m);
// Refused: a status that is neither a reply's OpStatus nor kTooLarge (which only this
// reply carries), a limit over kMaxInlineDataBytes.
bool DecodeCreateDataReply(std::string_view body, CreateDataReply* m);
// Refused: data with a status other than kOk.
bool DecodeReadDataReply(std::string_view body, ReadDataReply* m);
bool DecodeDeleteReply(std::string_view body, OpStatus* status);

}  // namespace deltameta
