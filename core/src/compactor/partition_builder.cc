// The compaction's partition builder: see partition_builder.h.
#include "compactor/partition_builder.h"

#include <algorithm>

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

}  // namespace

void PartitionBuilder::Add(std::string_view key, std::string_view value) {
  const size_t record = EntryRecordBytes(key, value);
  if (!last_is_open_ || blocks_.back().size() + record > blocks_.back().capacity()) {
    blocks_.emplace_back();
    blocks_.back().reserve(std::max(kBlockBytes, record));  // appends within it never move it
    last_is_open_ = true;
  }
  std::string& block = blocks_.back();
  const size_t at = block.size();
  block.resize(at + record);
  WriteEntryRecord(&block[at], key, value);
  count_++;
}

bool PartitionBuilder::AddRecords(std::string records) {
  std::string_view in = records, key, value;
  uint64_t n = 0;
  while (NextEntryRecord(&in, &key, &value)) n++;
  if (!in.empty()) return false;
  if (records.empty()) return true;
  blocks_.push_back(std::move(records));  // after everything held: arrival order is kept
  last_is_open_ = false;
  count_ += n;
  return true;
}

bool PartitionBuilder::Build(const StorageLocation& staging, const std::string& uri, const StoreOptions& options,
                             const StoreLayout& layout, uint64_t* duplicates, std::string* error) {
  std::vector<const char*> records;
  records.reserve(count_);
  for (const std::string& block : blocks_) {
    std::string_view in = block, key, value;
    while (NextEntryRecord(&in, &key, &value)) records.push_back(key.data() - 2);
  }
  // A stable sort keeps the first of equal keys first.
  std::stable_sort(records.begin(), records.end(), [](const char* a, const char* b) { return KeyAt(a) < KeyAt(b); });
  TableWriter writer(options, staging, "");
  rocksdb::Status s;
  std::string_view last;
  for (const char* record : records) {
    std::string_view key = KeyAt(record);
    if (key == last) {
      (*duplicates)++;
      continue;
    }
    s = writer.Add(key, ValueAt(record));
    if (!s.ok()) break;
    last = key;
  }
  std::vector<std::string> tables;
  if (s.ok()) s = writer.Finish(&tables);
  if (!s.ok()) {
    *error = "cannot write tables in " + staging.uri() + ": " + s.ToString();
    return false;
  }
  auto store = Store::Open(uri, Store::Mode::kCreate, options, layout, error);
  if (!store) return false;
  if (!tables.empty()) s = store->Ingest(tables);
  if (s.ok()) s = store->Close();
  if (!s.ok()) *error = "cannot ingest the compacted tables into " + uri + ": " + s.ToString();
  return s.ok();
}

}  // namespace deltameta
