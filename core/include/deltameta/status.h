// The result of the core's functions that can fail, its one result type at the library's
// boundary (as LevelDB's Status): OK, or a failure with a code and the whole text users see,
// a sentence naming what is wrong and the fix, or what was being done followed by RocksDB's
// own text ("cannot write to store /db/r0: IO error: ..."). ToString() gives that text as
// it is: no code is put before it. It does not depend on RocksDB, so that the tools without
// a store (deltameta_client links no RocksDB) report failures with it too; the library turns
// RocksDB's statuses into it in one place (src/store/rocksdb_status.h).
#pragma once

#include <string>
#include <utility>

namespace deltameta {

class Status {
 public:
  Status() = default;  // OK
  static Status OK() { return Status(); }
  static Status NotFound(std::string text) { return Status(Code::kNotFound, std::move(text)); }
  static Status InvalidArgument(std::string text) { return Status(Code::kInvalidArgument, std::move(text)); }
  static Status Corruption(std::string text) { return Status(Code::kCorruption, std::move(text)); }
  static Status IOError(std::string text) { return Status(Code::kIOError, std::move(text)); }

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }

  // The text users see: the failure's whole text ("OK" if ok()).
  std::string ToString() const { return ok() ? "OK" : text_; }
  // This failure, of the same code, with what was being done before its text:
  // "<what>: <text>". OK stays OK.
  Status WithContext(const std::string& what) const { return ok() ? *this : Status(code_, what + ": " + text_); }

 private:
  enum class Code { kOk, kNotFound, kInvalidArgument, kCorruption, kIOError };
  Status(Code code, std::string text) : code_(code), text_(std::move(text)) {}

  Code code_ = Code::kOk;
  std::string text_;
};

}  // namespace deltameta
