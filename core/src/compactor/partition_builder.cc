// The compaction's partition builder: see partition_builder.h.
#include "compactor/partition_builder.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "compactor/run_file.h"
#include "compactor/run_merge.h"
#include "deltameta/store.h"
#include "format/entry_record.h"
#include "store/table_writer.h"

namespace deltameta {
namespace {

std::string_view KeyAt(const char* record) { return std::string_view(record + 2, LoadLE<uint16_t>(record)); }

std::string_view ValueAt(const char* record) {
  const std::string_view key = KeyAt(record);
  return std::string_view(key.data() + key.size() + 2, LoadLE<uint16_t>(key.data() + key.size()));
}

// Passes sorted records to `out`, each key once (the first); counts the others.
rocksdb::Status WriteSorted(const std::vector<const char*>& records, const RecordSink& out, uint64_t* duplicates) {
  std::string_view last;
  for (const char* record : records) {
    const std::string_view key = KeyAt(record);
    if (key == last) {
      (*duplicates)++;
      continue;
    }
    rocksdb::Status s = out(key, ValueAt(record));
    if (!s.ok()) return s;
    last = key;
  }
  return rocksdb::Status::OK();
}

}  // namespace

PartitionBuilder::PartitionBuilder(const StorageLocation& staging, size_t bound_bytes)
    : staging_(staging), bound_(bound_bytes) {}

bool PartitionBuilder::AddRecords(std::string records, std::string* error) {
  std::string_view in = records, key, value;
  uint64_t n = 0;
  while (NextEntryRecord(&in, &key, &value)) n++;
  if (!in.empty()) {
    *error = "a shuffle batch is malformed (it does not end with a whole entry record)";
    return false;
  }
  if (records.empty()) return true;
  const size_t index_bytes = sizeof(const char*) * (held_count_ + n);
  if (held_count_ > 0 && held_bytes_ + records.size() + index_bytes > bound_ && !Spill(error)) {
    return false;
  }
  held_bytes_ += records.size();
  held_count_ += n;
  count_ += n;
  blocks_.push_back(std::move(records));  // after everything held: arrival order is kept
  return true;
}

std::vector<const char*> PartitionBuilder::SortedHeld() const {
  std::vector<const char*> records;
  records.reserve(held_count_);
  for (const std::string& block : blocks_) {
    std::string_view in = block, key, value;
    while (NextEntryRecord(&in, &key, &value)) records.push_back(key.data() - 2);
  }
  // A stable sort keeps the first of equal keys first.
  std::stable_sort(records.begin(), records.end(), [](const char* a, const char* b) { return KeyAt(a) < KeyAt(b); });
  return records;
}

StorageLocation PartitionBuilder::NextRunFile() {
  char name[32];
  std::snprintf(name, sizeof(name), "run-%06llu", static_cast<unsigned long long>(++run_files_));
  return staging_.Child(name);
}

bool PartitionBuilder::Spill(std::string* error) {
  const StorageLocation file = NextRunFile();
  RunWriter run;
  rocksdb::Status s = run.Open(file, kRunBufferBytes);
  if (s.ok()) {
    s = WriteSorted(
        SortedHeld(), [&run](std::string_view key, std::string_view value) { return run.Add(key, value); },
        &duplicates_);
  }
  rocksdb::Status c = run.Close();
  if (s.ok()) s = c;
  if (!s.ok()) {
    *error =
        "cannot write the sorted run " + file.uri() + ": " + s.ToString() + " (free space there or move --dst_dir)";
    return false;
  }
  runs_.push_back(file);
  blocks_.clear();
  held_bytes_ = 0;
  held_count_ = 0;
  return true;
}

rocksdb::Status PartitionBuilder::MergeRuns(size_t first, size_t count, const RecordSink& out) {
  std::vector<RunReader> readers(count);
  std::vector<RunReader*> runs;
  for (size_t i = 0; i < count; i++) {
    rocksdb::Status s = readers[i].Open(runs_[first + i], kRunBufferBytes);
    if (!s.ok()) return s;
    runs.push_back(&readers[i]);
  }
  return deltameta::MergeRuns(runs, out, &duplicates_);
}

bool PartitionBuilder::MergeIntoRun(size_t first, size_t count, StorageLocation* merged, std::string* error) {
  *merged = NextRunFile();
  RunWriter run;
  rocksdb::Status s = run.Open(*merged, kRunBufferBytes);
  if (s.ok()) s = MergeRuns(first, count, [&run](std::string_view k, std::string_view v) { return run.Add(k, v); });
  rocksdb::Status c = run.Close();
  if (s.ok()) s = c;
  if (!s.ok()) {
    *error = "cannot merge sorted runs into " + merged->uri() + ": " + s.ToString() +
             " (free space there or move --dst_dir)";
    return false;
  }
  for (size_t i = first; i < first + count; i++) runs_[i].env()->DeleteFile(runs_[i].path());
  return true;
}

bool PartitionBuilder::Build(const std::string& uri, const StoreOptions& options, const StoreLayout& layout,
                             uint64_t* duplicates, std::string* error) {
  if (!runs_.empty() && held_count_ > 0 && !Spill(error)) return false;
  // The merge's buffers take at most half the bound: with more runs, merge neighbours
  // (arrival order is kept), fan_in at a time, until there are no more.
  const size_t fan_in = std::max<size_t>(2, bound_ / (2 * kRunBufferBytes));
  while (runs_.size() > fan_in) {
    std::vector<StorageLocation> next;
    for (size_t first = 0; first < runs_.size(); first += fan_in) {
      const size_t count = std::min(fan_in, runs_.size() - first);
      next.push_back(runs_[first]);
      if (count > 1 && !MergeIntoRun(first, count, &next.back(), error)) return false;
    }
    runs_ = std::move(next);
  }

  TableWriter writer(options, staging_, "");
  auto add = [&writer](std::string_view key, std::string_view value) { return writer.Add(key, value); };
  rocksdb::Status s = runs_.empty() ? WriteSorted(SortedHeld(), add, &duplicates_) : MergeRuns(0, runs_.size(), add);
  std::vector<std::string> tables;
  if (s.ok()) s = writer.Finish(&tables);
  if (!s.ok()) {
    *error = "cannot write the compacted tables in " + staging_.uri() + ": " + s.ToString();
    return false;
  }
  blocks_.clear();
  *duplicates += duplicates_;
  std::unique_ptr<Store> store;
  Status stored = Store::Open(uri, Store::Mode::kCreate, options, layout, &store);
  if (!stored.ok()) {
    *error = stored.ToString();
    return false;
  }
  if (!tables.empty()) stored = store->Ingest(tables);
  if (stored.ok()) stored = store->Close();
  if (!stored.ok()) *error = stored.WithContext("cannot ingest the compacted tables into " + uri).ToString();
  return stored.ok();
}

}  // namespace deltameta
