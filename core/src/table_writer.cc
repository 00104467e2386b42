// Table file writer: see table_writer.h.
#include "deltameta/table_writer.h"

#include <cstdio>

namespace deltameta {

TableWriter::TableWriter(const StoreOptions& options, std::string path_prefix)
    : options_(options.ToRocksDb()),
      target_bytes_(static_cast<uint64_t>(options.table_size)),
      prefix_(std::move(path_prefix)) {}

TableWriter::~TableWriter() = default;

rocksdb::Status TableWriter::StartTable() {
  char name[32];
  std::snprintf(name, sizeof(name), "%06zu.sst", paths_.size() + 1);
  writer_ = std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(), options_);
  rocksdb::Status s = writer_->Open(prefix_ + name);
  if (s.ok()) paths_.push_back(prefix_ + name);
  return s;
}

rocksdb::Status TableWriter::Add(std::string_view key, std::string_view value) {
  rocksdb::Status s;
  if (writer_ && writer_->FileSize() >= target_bytes_) {
    s = writer_->Finish();
    writer_.reset();
    if (!s.ok()) return s;
  }
  if (!writer_) s = StartTable();
  if (!s.ok()) return s;
  return writer_->Put(rocksdb::Slice(key.data(), key.size()), rocksdb::Slice(value.data(), value.size()));
}

rocksdb::Status TableWriter::Finish(std::vector<std::string>* paths) {
  rocksdb::Status s;
  if (writer_) s = writer_->Finish();
  writer_.reset();
  *paths = paths_;
  return s;
}

}  // namespace deltameta
