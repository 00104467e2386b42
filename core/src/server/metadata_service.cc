// Metadata request handler: see metadata_service.h.
#include "server/metadata_service.h"

#include <cstdio>

#include "deltameta/key.h"
#include "deltameta/partition.h"
#include "server/ingest_check.h"
#include "util/phase_report.h"

namespace deltameta {

MetadataService::MetadataService(Store* store, uint32_t partition, uint32_t num_partitions, bool check_existence,
                                 std::string log_prefix)
    : store_(store),
      partition_(partition),
      num_partitions_(num_partitions),
      check_existence_(check_existence),
      log_prefix_(std::move(log_prefix)) {}

void MetadataService::Report(const std::string& what) {
  // Once kLoggedErrors failures are logged, a failure only reads errors_: a store failing
  // every request (a full disk) does not make every loop thread write one shared line.
  if (errors_.load(std::memory_order_relaxed) >= kLoggedErrors) return;
  const uint64_t n = errors_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (n <= kLoggedErrors) {
    std::fprintf(stderr, "%s: request failed: %s%s\n", log_prefix_.c_str(), what.c_str(),
                 n == kLoggedErrors ? " (further failures are not logged)" : "");
  }
}

bool MetadataService::Handle(const FrameHeader& h, std::string_view body, std::string* reply) {
  thread_local std::string key;
  switch (h.type) {
    case MsgType::kCreate: {
      thread_local CreateRequest req;
      if (!DecodeCreate(body, &req)) return false;
      EncodeStatReply(Create(req, &key), h.seq, reply);
      return true;
    }
    case MsgType::kLstat: {
      thread_local LstatRequest req;
      if (!DecodeLstat(body, &req)) return false;
      EncodeStatReply(Lstat(req, &key), h.seq, reply);
      return true;
    }
    case MsgType::kCreateData: {
      thread_local CreateDataRequest req;
      thread_local std::string value;
      if (!DecodeCreateData(body, &req)) return false;
      EncodeCreateDataReply(CreateData(req, &key, &value), h.seq, reply);
      return true;
    }
    case MsgType::kReadData: {
      thread_local NameRequest req;
      thread_local std::string value;
      if (!DecodeReadData(body, &req)) return false;
      ReadData(req, h.seq, &key, &value, reply);
      return true;
    }
    case MsgType::kDelete: {
      thread_local NameRequest req;
      if (!DecodeDelete(body, &req)) return false;
      EncodeDeleteReply(Delete(req, &key), h.seq, reply);
      return true;
    }
    case MsgType::kIngest: {
      IngestRequest req;
      if (!DecodeIngest(body, &req)) return false;
      EncodeIngestReply(Ingest(req), h.seq, reply);
      return true;
    }
    case MsgType::kInfo:
      if (!DecodeInfo(body)) return false;
      EncodeInfoReply(info_, h.seq, reply);
      return true;
    case MsgType::kStats: {
      StatsRequest req;
      if (!DecodeStats(body, &req)) return false;
      EncodeStatsReply(Stats(req), h.seq, reply);
      return true;
    }
    default:
      return false;  // a reply type sent as a request
  }
}

StatReply MetadataService::Create(const CreateRequest& req, std::string* key) {
  key->clear();
  AppendKey(key, req.dir_id, req.name);
  const OpStatus check = CheckWrite(req.name, *key, true);
  if (check != OpStatus::kOk) return {check, {}};
  Status s = store_->Put(*key, req.stat);
  if (!s.ok()) {
    Report(s);
    return {OpStatus::kIoError, {}};
  }
  return {OpStatus::kOk, req.stat};
}

StatReply MetadataService::Lstat(const LstatRequest& req, std::string* key) {
  StatReply r;
  if (PartitionOf(req.name, num_partitions_) != partition_) return {OpStatus::kWrongServer, {}};
  key->clear();
  AppendKey(key, req.dir_id, req.name);
  thread_local std::string value;
  Status g = store_->Get(*key, &value);
  if (g.IsNotFound()) return {OpStatus::kNotFound, {}};
  // The stat leads the value; an object's inline data may follow it.
  std::string_view v = value;
  if (!g.ok() || !ConsumeStat(&v, &r.stat)) {
    Report(g.ok() ? "the stored value of '" + req.name + "' is malformed" : g.ToString());
    return {OpStatus::kIoError, {}};
  }
  return r;
}

OpStatus MetadataService::CheckWrite(std::string_view name, const std::string& key, bool must_be_new) {
  if (store_->read_only()) return OpStatus::kReadOnly;
  if (PartitionOf(name, num_partitions_) != partition_) return OpStatus::kWrongServer;
  if (!check_existence_) return OpStatus::kOk;
  thread_local std::string existing;
  Status g = store_->Get(key, &existing);
  if (g.ok()) return must_be_new ? OpStatus::kExists : OpStatus::kOk;
  if (g.IsNotFound()) return must_be_new ? OpStatus::kOk : OpStatus::kNotFound;
  Report(g);
  return OpStatus::kIoError;
}

CreateDataReply MetadataService::CreateData(const CreateDataRequest& req, std::string* key, std::string* value) {
  CreateDataReply r{OpStatus::kOk, inline_data_max_};
  if (store_->read_only()) r.status = OpStatus::kReadOnly;
  if (r.status == OpStatus::kOk && req.data.size() > inline_data_max_) r.status = OpStatus::kTooLarge;
  if (r.status != OpStatus::kOk) return r;
  key->clear();
  AppendKey(key, req.dir_id, req.name);
  r.status = CheckWrite(req.name, *key, true);
  if (r.status != OpStatus::kOk) return r;
  value->clear();
  AppendStat(value, req.stat);
  value->append(req.data);
  Status s = store_->PutValue(*key, *value);
  if (!s.ok()) {
    Report(s);
    r.status = OpStatus::kIoError;
  }
  return r;
}

void MetadataService::ReadData(const NameRequest& req, uint32_t seq, std::string* key, std::string* value,
                               std::string* reply) {
  if (PartitionOf(req.name, num_partitions_) != partition_) {
    return EncodeReadDataReply(OpStatus::kWrongServer, {}, {}, seq, reply);
  }
  key->clear();
  AppendKey(key, req.dir_id, req.name);
  Status g = store_->Get(*key, value);
  if (g.IsNotFound()) return EncodeReadDataReply(OpStatus::kNotFound, {}, {}, seq, reply);
  std::string_view data = *value;
  FileStat stat;
  if (!g.ok() || !ConsumeStat(&data, &stat)) {
    Report(g.ok() ? "the stored value of '" + req.name + "' is malformed" : g.ToString());
    return EncodeReadDataReply(OpStatus::kIoError, {}, {}, seq, reply);
  }
  EncodeReadDataReply(OpStatus::kOk, stat, data, seq, reply);
}

OpStatus MetadataService::Delete(const NameRequest& req, std::string* key) {
  key->clear();
  AppendKey(key, req.dir_id, req.name);
  const OpStatus check = CheckWrite(req.name, *key, false);
  if (check != OpStatus::kOk) return check;
  Status s = store_->Delete(*key);
  if (!s.ok()) {
    Report(s);
    return OpStatus::kIoError;
  }
  return OpStatus::kOk;
}

IngestReply MetadataService::Ingest(const IngestRequest& req) {
  if (store_->read_only()) return {OpStatus::kReadOnly, "this server opened its store read-only"};
  const Status checked = CheckIngestTables(store_->location(), partition_, num_partitions_, req.table_paths);
  if (!checked.ok()) {
    Report(checked);
    return {OpStatus::kRefused, checked.ToString()};
  }
  Status s = store_->Ingest(req.table_paths);
  if (!s.ok()) {
    Report(s);
    return {OpStatus::kIoError, s.WithContext("cannot ingest " + req.table_paths[0]).ToString()};
  }
  return {OpStatus::kOk, ""};
}

StatsReply MetadataService::Stats(const StatsRequest& req) {
  StatsReply r;
  r.cpu_micros = static_cast<uint64_t>(ProcessCpuSeconds() * 1e6);
  if (req.count_entries) {
    Status s = store_->CountEntries(&r.entries);
    if (!s.ok()) {
      Report(s.WithContext("cannot count the entries"));
      r.status = OpStatus::kIoError;
    }
  }
  r.read_only = store_->read_only();
  return r;
}

}  // namespace deltameta
