// RocksDB's statuses as the core's: see rocksdb_status.h.
#include "store/rocksdb_status.h"

#include <utility>

namespace deltameta {

Status WithRocksDbCode(const rocksdb::Status& s, std::string text) {
  if (s.IsNotFound()) return Status::NotFound(std::move(text));
  if (s.IsInvalidArgument()) return Status::InvalidArgument(std::move(text));
  if (s.IsCorruption()) return Status::Corruption(std::move(text));
  return Status::IOError(std::move(text));
}

Status FromRocksDbFailure(const rocksdb::Status& s) {
  // Store::Get's miss, on every create's check that a name is new: its text without
  // building it (RocksDB writes a NotFound without a message as "NotFound: ").
  if (s.IsNotFound() && s.getState() == nullptr) return Status::NotFound("NotFound: ");
  return WithRocksDbCode(s, s.ToString());
}

}  // namespace deltameta
