// Sorted runs that the compaction's partition builder (partition_builder.h) spills to
// storage: entry records (entry_record.h) back to back in one file, written and read
// through one buffer of fixed size each, so a run of any length costs one buffer of memory.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <rocksdb/env.h>

#include "deltameta/storage.h"

namespace deltameta {

class RunWriter {
 public:
  // Creates (or replaces) `file`; records reach it in writes of `buffer_bytes`.
  rocksdb::Status Open(const StorageLocation& file, size_t buffer_bytes);
  rocksdb::Status Add(std::string_view key, std::string_view value);
  // Writes what is buffered and closes the file (if Open made one).
  rocksdb::Status Close();

 private:
  std::unique_ptr<rocksdb::WritableFile> file_;
  std::string buffer_;
  size_t buffer_bytes_ = 0;
};

class RunReader {
 public:
  // Opens `file` to read it in reads of `buffer_bytes` (more for a record that needs more).
  rocksdb::Status Open(const StorageLocation& file, size_t buffer_bytes);
  // Moves to the next record: false at the end of the file or on error (status()). The
  // views key() and value() stay valid until the next call.
  bool Next();
  std::string_view key() const { return key_; }
  std::string_view value() const { return value_; }
  const rocksdb::Status& status() const { return status_; }

 private:
  // Keeps the unread bytes and reads more after them; false at the end of the file.
  bool Refill();

  std::unique_ptr<rocksdb::SequentialFile> file_;
  std::string uri_;
  std::string buffer_;
  size_t begin_ = 0, end_ = 0;  // the unread bytes of buffer_
  bool at_end_ = false;
  std::string_view key_, value_;
  rocksdb::Status status_;
};

}  // namespace deltameta
