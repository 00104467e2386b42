// Run files of the partition builder: see run_file.h.
#include "compactor/run_file.h"

#include <algorithm>
#include <cstring>

#include "format/entry_record.h"

namespace deltameta {

rocksdb::Status RunWriter::Open(const StorageLocation& file, size_t buffer_bytes) {
  buffer_bytes_ = buffer_bytes;
  buffer_.clear();
  buffer_.reserve(buffer_bytes_);
  return file.env()->NewWritableFile(file.path(), &file_, rocksdb::EnvOptions());
}

rocksdb::Status RunWriter::Add(std::string_view key, std::string_view value) {
  rocksdb::Status s;
  const size_t record = EntryRecordBytes(key, value);
  if (buffer_.size() + record > buffer_bytes_ && !buffer_.empty()) {
    s = file_->Append(buffer_);
    buffer_.clear();
  }
  const size_t at = buffer_.size();
  buffer_.resize(at + record);  // beyond buffer_bytes only for one record larger than that
  WriteEntryRecord(&buffer_[at], key, value);
  if (s.ok() && buffer_.size() > buffer_bytes_) {
    s = file_->Append(buffer_);
    buffer_.clear();
    buffer_.shrink_to_fit();
    buffer_.reserve(buffer_bytes_);
  }
  return s;
}

rocksdb::Status RunWriter::Close() {
  if (!file_) return rocksdb::Status::OK();  // never opened
  rocksdb::Status s = buffer_.empty() ? rocksdb::Status::OK() : file_->Append(buffer_);
  buffer_.clear();
  rocksdb::Status c = file_->Close();
  file_.reset();
  return s.ok() ? c : s;
}

rocksdb::Status RunReader::Open(const StorageLocation& file, size_t buffer_bytes) {
  uri_ = file.uri();
  buffer_.assign(std::max<size_t>(buffer_bytes, 4096), '\0');
  begin_ = end_ = 0;
  at_end_ = false;
  status_ = file.env()->NewSequentialFile(file.path(), &file_, rocksdb::EnvOptions());
  return status_;
}

bool RunReader::Next() {
  if (!status_.ok()) return false;
  for (;;) {
    std::string_view unread(buffer_.data() + begin_, end_ - begin_);
    const size_t before = unread.size();
    if (NextEntryRecord(&unread, &key_, &value_)) {
      begin_ += before - unread.size();
      return true;
    }
    if (!Refill()) {
      if (status_.ok() && begin_ != end_) status_ = rocksdb::Status::Corruption(uri_ + " ends inside a record");
      return false;
    }
  }
}

bool RunReader::Refill() {
  if (at_end_) return false;
  std::memmove(&buffer_[0], buffer_.data() + begin_, end_ - begin_);
  end_ -= begin_;
  begin_ = 0;
  // A record longer than the buffer (at most kMaxEntryRecordBytes) makes it grow.
  if (end_ == buffer_.size()) buffer_.resize(std::max(2 * buffer_.size(), kMaxEntryRecordBytes));
  rocksdb::Slice got;
  status_ = file_->Read(buffer_.size() - end_, &got, &buffer_[end_]);
  if (!status_.ok()) return false;
  if (got.data() != buffer_.data() + end_) std::memmove(&buffer_[end_], got.data(), got.size());
  end_ += got.size();
  at_end_ = got.empty();
  return !at_end_;
}

}  // namespace deltameta
