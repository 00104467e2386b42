// File attributes stored as the value of a metadata key, and their fixed-size encoding.
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
    return ino == o.ino && mode == o.mode && uid == o.uid && gid == o.gid && size == o.size &&
           mtime_us == o.mtime_us && ctime_us == o.ctime_us;
  }
};

// One format version byte, then the fields little-endian in declaration order.
constexpr uint8_t kStatFormatVersion = 1;
constexpr size_t kEncodedStatBytes = 1 + 8 + 4 + 4 + 4 + 8 + 8 + 8;

// Writes exactly kEncodedStatBytes to `out`.
void EncodeStat(const FileStat& stat, char* out);
void AppendStat(std::string* dst, const FileStat& stat);

// Returns false unless `in` is exactly one encoded stat of the current version.
bool DecodeStat(std::string_view in, FileStat* stat);

}  // namespace deltameta
