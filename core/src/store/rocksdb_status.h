// The one conversion of RocksDB's statuses (its database's, its file systems' and its
// iterators') into the core's Status (deltameta/status.h): the code kept where Status has
// it (NotFound, InvalidArgument, Corruption; every other failure is an IOError), the text
// RocksDB's own, its code first ("IO error: No space left on device: ..."), as the tools
// have always printed it.
#pragma once

#include <string>

#include <rocksdb/status.h>

#include "deltameta/status.h"

namespace deltameta {

// A failure of the code FromRocksDb gives `s`, with the text `text`.
Status WithRocksDbCode(const rocksdb::Status& s, std::string text);
Status FromRocksDbFailure(const rocksdb::Status& s);

// OK costs no more than the test (a store's every write and read passes through here).
inline Status FromRocksDb(const rocksdb::Status& s) { return s.ok() ? Status() : FromRocksDbFailure(s); }

}  // namespace deltameta
