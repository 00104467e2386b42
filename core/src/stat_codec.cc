// Stat encoding: see stat_codec.h.
#include "deltameta/stat_codec.h"

#include "deltameta/byte_order.h"

namespace deltameta {

void EncodeStat(const FileStat& s, char* out) {
  out[0] = static_cast<char>(kStatFormatVersion);
  StoreLE(out + 1, s.ino);
  StoreLE(out + 9, s.mode);
  StoreLE(out + 13, s.uid);
  StoreLE(out + 17, s.gid);
  StoreLE(out + 21, s.size);
  StoreLE(out + 29, s.mtime_us);
  StoreLE(out + 37, s.ctime_us);
}

void AppendStat(std::string* dst, const FileStat& stat) {
  char buf[kEncodedStatBytes];
  EncodeStat(stat, buf);
  dst->append(buf, sizeof(buf));
}

bool DecodeStat(std::string_view in, FileStat* s) {
  if (in.size() != kEncodedStatBytes || static_cast<uint8_t>(in[0]) != kStatFormatVersion) {
    return false;
  }
  const char* p = in.data();
  s->ino = LoadLE<uint64_t>(p + 1);
  s->mode = LoadLE<uint32_t>(p + 9);
  s->uid = LoadLE<uint32_t>(p + 13);
  s->gid = LoadLE<uint32_t>(p + 17);
  s->size = LoadLE<uint64_t>(p + 21);
  s->mtime_us = LoadLE<uint64_t>(p + 29);
  s->ctime_us = LoadLE<uint64_t>(p + 37);
  return true;
}

}  // namespace deltameta
