// Key encoding: see key.h.
#include "deltameta/key.h"

namespace deltameta {

void AppendKey(std::string* dst, uint64_t dir_id, std::string_view name) {
  char id[kDirIdBytes];
  for (size_t i = 0; i < kDirIdBytes; i++) {
    id[i] = static_cast<char>(dir_id >> (8 * (kDirIdBytes - 1 - i)));
  }
  dst->append(id, kDirIdBytes);
  dst->append(name.data(), name.size());
}

std::string EncodeKey(uint64_t dir_id, std::string_view name) {
  std::string key;
  key.reserve(kDirIdBytes + name.size());
  AppendKey(&key, dir_id, name);
  return key;
}

bool DecodeKey(std::string_view key, uint64_t* dir_id, std::string_view* name) {
  if (key.size() <= kDirIdBytes || key.size() > kDirIdBytes + kMaxNameBytes) return false;
  uint64_t id = 0;
  for (size_t i = 0; i < kDirIdBytes; i++) id = (id << 8) | static_cast<uint8_t>(key[i]);
  *dir_id = id;
  *name = key.substr(kDirIdBytes);
  return true;
}

}  // namespace deltameta
