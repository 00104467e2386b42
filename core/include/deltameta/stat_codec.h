// File attributes stored as the value of a metadata key, and their compact encoding.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace deltameta {

struct FileStat {
  uint64_t ino = 0;
  uint32_t mode = 0;
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint64_t size = 0;
  uint64_t mtime_us = 0;
  uint64_t ctime_us = 0;

  bool operator==(const FileStat& o) const {
    return ino == o.ino && mode == o.mode && uid == o.uid && gid == o.gid && size == o.size && mtime_us == o.mtime_us &&
           ctime_us == o.ctime_us;
  }
};

// One format version byte, then varints (varint.h) of ino, mode, uid, gid, size and
// mtime_us, then ctime_us as the zigzag varint of its difference from mtime_us (one byte
// when the two are equal, as for a new file). A benchmark entry takes about 22 bytes.
constexpr uint8_t kStatFormatVersion = 2;
constexpr size_t kMaxEncodedStatBytes = 1 + 10 + 5 + 5 + 5 + 10 + 10 + 10;

// Writes the encoding to `out` (room for kMaxEncodedStatBytes); returns its length.
size_t EncodeStat(const FileStat& stat, char* out);
void AppendStat(std::string* dst, const FileStat& stat);

// Decodes one stat of the current version from the front of *in and advances past it;
// false if it is malformed (then *in is unspecified).
bool ConsumeStat(std::string_view* in, FileStat* stat);

// Returns false unless `in` is exactly one encoded stat of the current version.
bool DecodeStat(std::string_view in, FileStat* stat);

}  // namespace deltameta
