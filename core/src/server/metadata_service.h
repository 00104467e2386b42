// The metadata server's request handler: creates and lstats names of its own partition
// in its store, ingests bulk-inserted tables, and answers discovery and stats queries.
// A request the store cannot serve (a full disk, a damaged table) gets an error reply, and
// the store's error, which names the file where RocksDB knows it, goes to stderr.
//
// Objects with data (MD-Workbench): a data create keeps the object's bytes inline, as the
// entry's value after its encoded stat, if they are at most the inline limit (else
// kTooLarge, with the limit in the reply); a data read returns the stat and the bytes; a
// delete removes the entry (kNotFound if it is absent and creates are checked). An lstat
// returns the stat alone, with or without data. A read-only store refuses data creates and
// deletes (kReadOnly), like creates.
#pragma once

#include <algorithm>
#include <atomic>
#include <string>

#include "deltameta/store.h"
#include "format/frame_handler.h"

namespace deltameta {

class MetadataService : public FrameHandler {
 public:
  // Serves partition `partition` of `num_partitions`. With `check_existence`, a create of
  // an existing name is refused (kExists); without it, creates overwrite blindly. Log
  // lines start with `log_prefix`.
  MetadataService(Store* store, uint32_t partition, uint32_t num_partitions, bool check_existence,
                  std::string log_prefix);

  // The server list returned by info requests; set before any client can ask.
  void SetInfo(InfoReply info) { info_ = std::move(info); }
  // The most data bytes a data create may keep inline (at most kMaxInlineDataBytes, the
  // default); set before any client can ask.
  void SetInlineDataMax(uint32_t bytes) { inline_data_max_ = std::min(bytes, kMaxInlineDataBytes); }

  bool Handle(const FrameHeader& header, std::string_view body, std::string* reply) override;

 private:
  StatReply Create(const CreateRequest& req, std::string* key);
  StatReply Lstat(const LstatRequest& req, std::string* key);
  CreateDataReply CreateData(const CreateDataRequest& req, std::string* key, std::string* value);
  // Replies to a data read from the stored value (in *value).
  void ReadData(const NameRequest& req, uint32_t seq, std::string* key, std::string* value, std::string* reply);
  OpStatus Delete(const NameRequest& req, std::string* key);
  // A write's checks: kOk, or why not (read-only, another partition's name, a name that
  // exists when creates are checked).
  OpStatus CheckWrite(std::string_view name, const std::string& key, bool must_be_new);
  IngestReply Ingest(const IngestRequest& req);
  StatsReply Stats(const StatsRequest& req);
  // Logs a failed request's reason: the first kLoggedErrors of them, then how many more.
  void Report(const std::string& what);
  void Report(const Status& s) { Report(s.ToString()); }
  static constexpr uint64_t kLoggedErrors = 10;

  Store* store_;
  uint32_t partition_, num_partitions_;
  bool check_existence_;
  uint32_t inline_data_max_ = kMaxInlineDataBytes;
  InfoReply info_;
  std::string log_prefix_;
  // Failed requests logged (it may overshoot kLoggedErrors by a few). Read by every failed
  // request, written only until kLoggedErrors: a log limit needs one job-wide order, which
  // per-thread counters (util/per_thread_counters.h) cannot give.
  std::atomic<uint64_t> errors_{0};
};

}  // namespace deltameta
