// Wire format encoders and validating decoders: see wire.h.
#include "format/wire.h"

#include "deltameta/key.h"
#include "format/byte_order.h"

namespace deltameta {
namespace {

// An attach request's CPU field: none (the client is not pinned), or at most kMaxCpu.
constexpr uint32_t kNoCpu = 0xffffffff;
constexpr uint32_t kMaxCpu = 1 << 16;

// Builds one frame: reserves the header, appends fields, then fills in the header.
class FrameWriter {
 public:
  FrameWriter(std::string* frame, MsgType type, uint32_t seq) : f_(frame), type_(type), seq_(seq) {
    f_->assign(kFrameHeaderBytes, '\0');
  }
  ~FrameWriter() {
    char* h = &(*f_)[0];
    h[0] = 'D';
    h[1] = 'M';
    h[2] = static_cast<char>(kWireVersion);
    h[3] = static_cast<char>(type_);
    StoreLE<uint32_t>(h + 4, static_cast<uint32_t>(f_->size() - kFrameHeaderBytes));
    StoreLE<uint32_t>(h + 8, seq_);
  }
  template <typename T>
  void Int(T v) {
    char b[sizeof(T)];
    StoreLE<T>(b, v);
    f_->append(b, sizeof(T));
  }
  void Str(std::string_view s) {
    Int<uint16_t>(static_cast<uint16_t>(s.size()));
    f_->append(s.data(), s.size());
  }
  void Stat(const FileStat& s) { AppendStat(f_, s); }
  // A u32 LE length and the bytes.
  void Bytes(std::string_view b) {
    Int<uint32_t>(static_cast<uint32_t>(b.size()));
    f_->append(b.data(), b.size());
  }

 private:
  std::string* f_;
  MsgType type_;
  uint32_t seq_;
};

// Reads fields from a body; any overrun or over-long string makes ok() false for good.
class BodyReader {
 public:
  explicit BodyReader(std::string_view body) : in_(body) {}
  template <typename T>
  T Int() {
    if (!Need(sizeof(T))) return 0;
    T v = LoadLE<T>(in_.data() + pos_);
    pos_ += sizeof(T);
    return v;
  }
  std::string Str(size_t min_len, size_t max_len) {
    size_t len = Int<uint16_t>();
    if (len < min_len || len > max_len) ok_ = false;
    if (!ok_ || !Need(len)) return std::string();
    std::string s(in_.substr(pos_, len));
    pos_ += len;
    return s;
  }
  // A u32 LE length and as many bytes, which the body must hold.
  std::string Bytes() {
    const size_t len = Int<uint32_t>();
    if (!Need(len)) return std::string();
    std::string b(in_.substr(pos_, len));
    pos_ += len;
    return b;
  }
  FileStat Stat() {
    FileStat s;
    if (!ok_) return s;
    std::string_view rest = in_.substr(pos_);
    if (ConsumeStat(&rest, &s)) {
      pos_ = in_.size() - rest.size();
    } else {
      ok_ = false;
    }
    return s;
  }
  void Fail() { ok_ = false; }
  bool ok() const { return ok_; }
  // True if every read succeeded and the whole body was consumed.
  bool Done() const { return ok_ && pos_ == in_.size(); }

 private:
  bool Need(size_t n) {
    if (ok_ && in_.size() - pos_ < n) ok_ = false;
    return ok_;
  }
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// kBadSecret answers only a hello (DecodeHelloReply), kTooLarge only a data create
// (DecodeCreateDataReply).
bool ValidStatus(uint8_t s) { return s <= static_cast<uint8_t>(OpStatus::kRefused); }

// The fields a read or delete request has: a directory id and a name.
void WriteName(MsgType type, const NameRequest& m, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, type, seq);
  w.Int<uint64_t>(m.dir_id);
  w.Str(m.name);
}

bool ReadName(std::string_view body, NameRequest* m) {
  BodyReader r(body);
  m->dir_id = r.Int<uint64_t>();
  m->name = r.Str(1, kMaxNameBytes);
  return r.Done();
}

// A reply that is a status alone.
bool ReadStatusOnly(std::string_view body, OpStatus* status) {
  BodyReader r(body);
  uint8_t s = r.Int<uint8_t>();
  if (!ValidStatus(s)) r.Fail();
  *status = static_cast<OpStatus>(s);
  return r.Done();
}

}  // namespace

const char* OpStatusName(OpStatus s) {
  switch (s) {
    case OpStatus::kOk:
      return "ok";
    case OpStatus::kExists:
      return "already exists";
    case OpStatus::kNotFound:
      return "not found";
    case OpStatus::kReadOnly:
      return "read-only server";
    case OpStatus::kIoError:
      return "store I/O error";
    case OpStatus::kWrongServer:
      return "name belongs to another server's partition";
    case OpStatus::kUnsupported:
      return "not supported on this connection";
    case OpStatus::kRefused:
      return "refused";
    case OpStatus::kBadSecret:
      return "wrong secret";
    case OpStatus::kTooLarge:
      return "data over the server's inline limit";
  }
  return "unknown status";
}

const char* HeaderErrorName(HeaderError e) {
  switch (e) {
    case HeaderError::kNone:
      return "ok";
    case HeaderError::kBadMagic:
      return "bad magic";
    case HeaderError::kBadVersion:
      return "unsupported wire version";
    case HeaderError::kUnknownType:
      return "unknown message type";
    case HeaderError::kTooLarge:
      return "frame body over the 1 MiB limit";
  }
  return "unknown header error";
}

HeaderError ParseFrameHeader(const char* in, FrameHeader* h) {
  if (in[0] != 'D' || in[1] != 'M') return HeaderError::kBadMagic;
  if (static_cast<uint8_t>(in[2]) != kWireVersion) return HeaderError::kBadVersion;
  uint8_t t = static_cast<uint8_t>(in[3]);
  switch (static_cast<MsgType>(t)) {
    case MsgType::kCreate:
    case MsgType::kLstat:
    case MsgType::kIngest:
    case MsgType::kInfo:
    case MsgType::kStats:
    case MsgType::kAttachShm:
    case MsgType::kHello:
    case MsgType::kStatReply:
    case MsgType::kIngestReply:
    case MsgType::kInfoReply:
    case MsgType::kStatsReply:
    case MsgType::kAttachShmReply:
    case MsgType::kHelloReply:
    case MsgType::kCreateData:
    case MsgType::kReadData:
    case MsgType::kDelete:
    case MsgType::kCreateDataReply:
    case MsgType::kReadDataReply:
    case MsgType::kDeleteReply:
      break;
    default:
      return HeaderError::kUnknownType;
  }
  h->type = static_cast<MsgType>(t);
  h->body_bytes = LoadLE<uint32_t>(in + 4);
  h->seq = LoadLE<uint32_t>(in + 8);
  if (h->body_bytes > kMaxFrameBodyBytes) return HeaderError::kTooLarge;
  return HeaderError::kNone;
}

void EncodeCreate(const CreateRequest& m, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, MsgType::kCreate, seq);
  w.Int<uint64_t>(m.dir_id);
  w.Str(m.name);
  w.Stat(m.stat);
}

void EncodeLstat(const LstatRequest& m, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, MsgType::kLstat, seq);
  w.Int<uint64_t>(m.dir_id);
  w.Str(m.name);
}

void EncodeIngest(const IngestRequest& m, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, MsgType::kIngest, seq);
  w.Int<uint32_t>(static_cast<uint32_t>(m.table_paths.size()));
  for (const auto& p : m.table_paths) w.Str(p);
}

void EncodeInfo(uint32_t seq, std::string* frame) { FrameWriter w(frame, MsgType::kInfo, seq); }

void EncodeStats(const StatsRequest& m, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, MsgType::kStats, seq);
  w.Int<uint8_t>(m.count_entries ? 1 : 0);
}

void EncodeAttachShm(int cpu, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, MsgType::kAttachShm, seq);
  w.Int<uint32_t>(cpu < 0 ? kNoCpu : static_cast<uint32_t>(cpu));
}

void EncodeHello(std::string_view secret, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, MsgType::kHello, seq);
  frame->append(secret.data(), secret.size());
}

void EncodeStatReply(const StatReply& m, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, MsgType::kStatReply, seq);
  w.Int<uint8_t>(static_cast<uint8_t>(m.status));
  w.Stat(m.stat);
}

void EncodeIngestReply(const IngestReply& m, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, MsgType::kIngestReply, seq);
  w.Int<uint8_t>(static_cast<uint8_t>(m.status));
  w.Str(m.message.substr(0, kMaxPathBytes));
}

void EncodeInfoReply(const InfoReply& m, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, MsgType::kInfoReply, seq);
  w.Int<uint32_t>(m.ports_per_rank);
  w.Int<uint32_t>(static_cast<uint32_t>(m.addresses.size()));
  for (const auto& a : m.addresses) w.Str(a);
}

void EncodeStatsReply(const StatsReply& m, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, MsgType::kStatsReply, seq);
  w.Int<uint64_t>(m.cpu_micros);
  w.Int<uint64_t>(m.entries);
  w.Int<uint8_t>(m.read_only ? 1 : 0);
  w.Int<uint8_t>(static_cast<uint8_t>(m.status));
}

void EncodeAttachShmReply(OpStatus status, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, MsgType::kAttachShmReply, seq);
  w.Int<uint8_t>(static_cast<uint8_t>(status));
}

void EncodeHelloReply(OpStatus status, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, MsgType::kHelloReply, seq);
  w.Int<uint8_t>(static_cast<uint8_t>(status));
}

void EncodeCreateData(const CreateDataRequest& m, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, MsgType::kCreateData, seq);
  w.Int<uint64_t>(m.dir_id);
  w.Str(m.name);
  w.Stat(m.stat);
  w.Bytes(m.data);
}

void EncodeReadData(const NameRequest& m, uint32_t seq, std::string* frame) {
  WriteName(MsgType::kReadData, m, seq, frame);
}

void EncodeDelete(const NameRequest& m, uint32_t seq, std::string* frame) {
  WriteName(MsgType::kDelete, m, seq, frame);
}

void EncodeCreateDataReply(const CreateDataReply& m, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, MsgType::kCreateDataReply, seq);
  w.Int<uint8_t>(static_cast<uint8_t>(m.status));
  w.Int<uint32_t>(m.inline_data_max);
}

void EncodeReadDataReply(OpStatus status, const FileStat& stat, std::string_view data, uint32_t seq,
                         std::string* frame) {
  FrameWriter w(frame, MsgType::kReadDataReply, seq);
  w.Int<uint8_t>(static_cast<uint8_t>(status));
  w.Stat(stat);
  w.Bytes(data);
}

void EncodeReadDataReply(const ReadDataReply& m, uint32_t seq, std::string* frame) {
  EncodeReadDataReply(m.status, m.stat, m.data, seq, frame);
}

void EncodeDeleteReply(OpStatus status, uint32_t seq, std::string* frame) {
  FrameWriter w(frame, MsgType::kDeleteReply, seq);
  w.Int<uint8_t>(static_cast<uint8_t>(status));
}

bool DecodeCreate(std::string_view body, CreateRequest* m) {
  BodyReader r(body);
  m->dir_id = r.Int<uint64_t>();
  m->name = r.Str(1, kMaxNameBytes);
  m->stat = r.Stat();
  return r.Done();
}

bool DecodeLstat(std::string_view body, LstatRequest* m) {
  BodyReader r(body);
  m->dir_id = r.Int<uint64_t>();
  m->name = r.Str(1, kMaxNameBytes);
  return r.Done();
}

bool DecodeIngest(std::string_view body, IngestRequest* m) {
  BodyReader r(body);
  uint32_t n = r.Int<uint32_t>();
  if (n == 0 || n > kMaxListEntries) r.Fail();
  m->table_paths.clear();
  for (uint32_t i = 0; i < n && r.ok(); i++) m->table_paths.push_back(r.Str(1, kMaxPathBytes));
  return r.Done() && m->table_paths.size() == n;
}

bool DecodeInfo(std::string_view body) { return body.empty(); }

bool DecodeStats(std::string_view body, StatsRequest* m) {
  BodyReader r(body);
  uint8_t c = r.Int<uint8_t>();
  if (c > 1) r.Fail();
  m->count_entries = c == 1;
  return r.Done();
}

bool DecodeAttachShm(std::string_view body, int* cpu) {
  BodyReader r(body);
  const uint32_t c = r.Int<uint32_t>();
  if (c != kNoCpu && c > kMaxCpu) r.Fail();
  *cpu = c == kNoCpu ? -1 : static_cast<int>(c);
  return r.Done();
}

bool DecodeHello(std::string_view body, std::string_view* secret) {
  if (body.size() != kHelloSecretBytes) return false;
  *secret = body;
  return true;
}

bool DecodeStatReply(std::string_view body, StatReply* m) {
  BodyReader r(body);
  uint8_t s = r.Int<uint8_t>();
  if (!ValidStatus(s)) r.Fail();
  m->status = static_cast<OpStatus>(s);
  m->stat = r.Stat();
  return r.Done();
}

bool DecodeIngestReply(std::string_view body, IngestReply* m) {
  BodyReader r(body);
  uint8_t s = r.Int<uint8_t>();
  if (!ValidStatus(s)) r.Fail();
  m->status = static_cast<OpStatus>(s);
  m->message = r.Str(0, kMaxPathBytes);
  return r.Done();
}

bool DecodeInfoReply(std::string_view body, InfoReply* m) {
  BodyReader r(body);
  m->ports_per_rank = r.Int<uint32_t>();
  uint32_t n = r.Int<uint32_t>();
  if (m->ports_per_rank == 0 || n == 0 || n > kMaxListEntries || n % m->ports_per_rank != 0) r.Fail();
  m->addresses.clear();
  for (uint32_t i = 0; i < n && r.ok(); i++) m->addresses.push_back(r.Str(3, 255));
  return r.Done() && m->addresses.size() == n;
}

bool DecodeStatsReply(std::string_view body, StatsReply* m) {
  BodyReader r(body);
  m->cpu_micros = r.Int<uint64_t>();
  m->entries = r.Int<uint64_t>();
  uint8_t ro = r.Int<uint8_t>();
  if (ro > 1) r.Fail();
  m->read_only = ro == 1;
  uint8_t status = r.Int<uint8_t>();
  if (!ValidStatus(status)) r.Fail();
  m->status = static_cast<OpStatus>(status);
  return r.Done();
}

bool DecodeAttachShmReply(std::string_view body, OpStatus* status) { return ReadStatusOnly(body, status); }

bool DecodeHelloReply(std::string_view body, OpStatus* status) {
  BodyReader r(body);
  uint8_t s = r.Int<uint8_t>();
  if (s != static_cast<uint8_t>(OpStatus::kOk) && s != static_cast<uint8_t>(OpStatus::kBadSecret)) r.Fail();
  *status = static_cast<OpStatus>(s);
  return r.Done();
}

bool DecodeCreateData(std::string_view body, CreateDataRequest* m) {
  BodyReader r(body);
  m->dir_id = r.Int<uint64_t>();
  m->name = r.Str(1, kMaxNameBytes);
  m->stat = r.Stat();
  m->data = r.Bytes();
  if (r.ok() && m->stat.size != m->data.size()) r.Fail();
  return r.Done();
}

bool DecodeReadData(std::string_view body, NameRequest* m) { return ReadName(body, m); }

bool DecodeDelete(std::string_view body, NameRequest* m) { return ReadName(body, m); }

bool DecodeCreateDataReply(std::string_view body, CreateDataReply* m) {
  BodyReader r(body);
  uint8_t s = r.Int<uint8_t>();
  if (!ValidStatus(s) && s != static_cast<uint8_t>(OpStatus::kTooLarge)) r.Fail();
  m->status = static_cast<OpStatus>(s);
  m->inline_data_max = r.Int<uint32_t>();
  if (m->inline_data_max > kMaxInlineDataBytes) r.Fail();
  return r.Done();
}

bool DecodeReadDataReply(std::string_view body, ReadDataReply* m) {
  BodyReader r(body);
  uint8_t s = r.Int<uint8_t>();
  if (!ValidStatus(s)) r.Fail();
  m->status = static_cast<OpStatus>(s);
  m->stat = r.Stat();
  m->data = r.Bytes();
  if (r.ok() && m->status != OpStatus::kOk && !m->data.empty()) r.Fail();
  return r.Done();
}

bool DecodeDeleteReply(std::string_view body, OpStatus* status) { return ReadStatusOnly(body, status); }

}  // namespace deltameta
