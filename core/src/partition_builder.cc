// The compaction's partition builder: see partition_builder.h.
#include "deltameta/partition_builder.h"

#include <algorithm>
#include <cstring>

#include "deltameta/byte_order.h"
#include "deltameta/store.h"
#include "deltameta/table_writer.h"

namespace deltameta {
namespace {

constexpr size_t kRecordHeaderBytes = 3;

std::string_view KeyAt(const char* record) {
  return std::string_view(record + kRecordHeaderBytes, LoadLE<uint16_t>(record));
}

std::string_view ValueAt(const char* record) {
  const std::string_view key = KeyAt(record);
  return std::string_view(key.data() + key.size(), static_cast<uint8_t>(record[2]));
}

}  // namespace

void PartitionBuilder::Add(std::string_view key, std::string_view value) {
  const size_t record = kRecordHeaderBytes + key.size() + value.size();
  if (blocks_.empty() || used_ + record > kBlockBytes) {
    blocks_.push_back(std::make_unique<char[]>(std::max(kBlockBytes, record)));
    used_ = 0;
  }
  char* p = blocks_.back().get() + used_;
  StoreLE<uint16_t>(p, static_cast<uint16_t>(key.size()));
  p[2] = static_cast<char>(value.size());
  std::memcpy(p + kRecordHeaderBytes, key.data(), key.size());
  std::memcpy(p + kRecordHeaderBytes + key.size(), value.data(), value.size());
  records_.push_back(p);
  used_ += record;
}

bool PartitionBuilder::Build(const StorageLocation& staging, const std::string& uri, const StoreOptions& options,
                             const StoreLayout& layout, uint64_t* duplicates, std::string* error) {
  // A stable sort keeps the first of equal keys first.
  std::stable_sort(records_.begin(), records_.end(), [](const char* a, const char* b) { return KeyAt(a) < KeyAt(b); });
  TableWriter writer(options, staging, "");
  rocksdb::Status s;
  std::string_view last;
  for (const char* record : records_) {
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
