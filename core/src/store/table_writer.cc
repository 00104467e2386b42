// Table file writer: see table_writer.h.
#include "store/table_writer.h"

#include <cstdio>

namespace deltameta {

TableWriter::TableWriter(const StoreOptions& options, const StorageLocation& dir, std::string name_prefix)
    : options_(options.ToRocksDb()),
      target_bytes_(static_cast<uint64_t>(options.table_size)),
      dir_(dir),
      prefix_(std::move(name_prefix)) {
  options_.env = dir_.env();
}

TableWriter::~TableWriter() = default;

rocksdb::Status TableWriter::StartTable() {
  char name[32];
  std::snprintf(name, sizeof(name), "%06llu.sst", static_cast<unsigned long long>(++tables_));
  const StorageLocation table = dir_.Child(prefix_ + name);
  // File buffers as the store's own flushes use (writable_file_max_buffer_size), not
  // RocksDB's 1 MiB default, which grows by copying.
  writer_ = std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(options_), options_);
  rocksdb::Status s = writer_->Open(table.path());
  if (s.ok()) uris_.push_back(table.uri());
  return s;
}

rocksdb::Status TableWriter::Add(std::string_view key, std::string_view value) {
  rocksdb::Status s;
  if (writer_ && writer_->FileSize() >= target_bytes_) s = FinishTable();
  if (s.ok() && !writer_) s = StartTable();
  if (!s.ok()) return s;
  return writer_->Put(rocksdb::Slice(key.data(), key.size()), rocksdb::Slice(value.data(), value.size()));
}

rocksdb::Status TableWriter::FinishTable() {
  rocksdb::Status s;
  if (writer_) s = writer_->Finish();
  writer_.reset();
  return s;
}

rocksdb::Status TableWriter::Finish(std::vector<std::string>* uris) {
  rocksdb::Status s = FinishTable();
  *uris = std::move(uris_);
  uris_.clear();
  return s;
}

}  // namespace deltameta
