// Stat encoding: see stat_codec.h.
#include "deltameta/stat_codec.h"

#include "format/varint.h"

namespace deltameta {

size_t EncodeStat(const FileStat& s, char* out) {
  size_t n = 0;
  out[n++] = static_cast<char>(kStatFormatVersion);
  n += PutVarint(out + n, s.ino);
  n += PutVarint(out + n, s.mode);
  n += PutVarint(out + n, s.uid);
  n += PutVarint(out + n, s.gid);
  n += PutVarint(out + n, s.size);
  n += PutVarint(out + n, s.mtime_us);
  n += PutVarint(out + n, ZigZag(static_cast<int64_t>(s.ctime_us - s.mtime_us)));
  return n;
}

void AppendStat(std::string* dst, const FileStat& stat) {
  char buf[kMaxEncodedStatBytes];
  dst->append(buf, EncodeStat(stat, buf));
}

bool ConsumeStat(std::string_view* in, FileStat* s) {
  if (in->empty() || static_cast<uint8_t>(in->front()) != kStatFormatVersion) return false;
  in->remove_prefix(1);
  uint64_t mode, uid, gid, ctime_delta;
  if (!GetVarint(in, 64, &s->ino) || !GetVarint(in, 32, &mode) || !GetVarint(in, 32, &uid) ||
      !GetVarint(in, 32, &gid) || !GetVarint(in, 64, &s->size) || !GetVarint(in, 64, &s->mtime_us) ||
      !GetVarint(in, 64, &ctime_delta)) {
    return false;
  }
  s->mode = static_cast<uint32_t>(mode);
  s->uid = static_cast<uint32_t>(uid);
  s->gid = static_cast<uint32_t>(gid);
  s->ctime_us = s->mtime_us + static_cast<uint64_t>(UnZigZag(ctime_delta));
  return true;
}

bool DecodeStat(std::string_view in, FileStat* stat) { return ConsumeStat(&in, stat) && in.empty(); }

}  // namespace deltameta
