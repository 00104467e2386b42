// Entry records, [key length u16][key][value length u16][value]: the form in which the
// compaction's shuffle carries entries and its partition builder holds them, so a
// received batch is kept as it arrived, never copied record by record.
#pragma once

#include <cstddef>
#include <string_view>

#include "format/byte_order.h"

namespace deltameta {

// Keys and values must be shorter than 64 KiB.
constexpr size_t kMaxEntryRecordBytes = 4 + 2 * 0xffff;

inline size_t EntryRecordBytes(std::string_view key, std::string_view value) { return 4 + key.size() + value.size(); }

// Writes one record to `out` (room for EntryRecordBytes); returns its length.
size_t WriteEntryRecord(char* out, std::string_view key, std::string_view value);

// Reads the record at the front of *in and advances past it; false if *in does not start
// with a whole record.
bool NextEntryRecord(std::string_view* in, std::string_view* key, std::string_view* value);

}  // namespace deltameta
