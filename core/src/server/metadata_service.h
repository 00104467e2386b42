// The metadata server's request handler: creates and lstats names of its own partition
// in its store, ingests bulk-inserted tables, and answers discovery and stats queries.
// A request the store cannot serve (a full disk, a damaged table) gets an error reply, and
// the store's error, which names the file where RocksDB knows it, goes to stderr.
#pragma once

#include <atomic>
#include <string>

#include "deltameta/store.h"
#include "rpc/frame_handler.h"

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

  bool Handle(const FrameHeader& header, std::string_view body, std::string* reply) override;

 private:
  StatReply Create(const CreateRequest& req, std::string* key);
  StatReply Lstat(const LstatRequest& req, std::string* key);
  IngestReply Ingest(const IngestRequest& req);
  StatsReply Stats(const StatsRequest& req);
  // Logs a failed request's reason: the first kLoggedErrors of them, then how many more.
  void Report(const std::string& what);
  void Report(const rocksdb::Status& s) { Report(s.ToString()); }
  static constexpr uint64_t kLoggedErrors = 10;

  Store* store_;
  uint32_t partition_, num_partitions_;
  bool check_existence_;
  InfoReply info_;
  std::string log_prefix_;
  // Failed requests logged (it may overshoot kLoggedErrors by a few). Read by every failed
  // request, written only until kLoggedErrors: a log limit needs one job-wide order, which
  // per-thread counters (util/per_thread_counters.h) cannot give.
  std::atomic<uint64_t> errors_{0};
};

}  // namespace deltameta
