// Entry records: see entry_record.h.
#include "format/entry_record.h"

#include <cstring>

namespace deltameta {

size_t WriteEntryRecord(char* out, std::string_view key, std::string_view value) {
  StoreLE<uint16_t>(out, static_cast<uint16_t>(key.size()));
  std::memcpy(out + 2, key.data(), key.size());
  StoreLE<uint16_t>(out + 2 + key.size(), static_cast<uint16_t>(value.size()));
  std::memcpy(out + 4 + key.size(), value.data(), value.size());
  return EntryRecordBytes(key, value);
}

bool NextEntryRecord(std::string_view* in, std::string_view* key, std::string_view* value) {
  if (in->size() < 2) return false;
  const size_t klen = LoadLE<uint16_t>(in->data());
  if (in->size() < 4 + klen) return false;
  const size_t vlen = LoadLE<uint16_t>(in->data() + 2 + klen);
  if (in->size() < 4 + klen + vlen) return false;
  *key = in->substr(2, klen);
  *value = in->substr(4 + klen, vlen);
  in->remove_prefix(4 + klen + vlen);
  return true;
}

}  // namespace deltameta
