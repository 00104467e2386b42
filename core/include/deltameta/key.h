// Metadata keys: an 8-byte big-endian directory id followed by the file name, so that one
// directory's entries are contiguous and ordered by name in the store.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace deltameta {

constexpr size_t kDirIdBytes = 8;
constexpr size_t kMaxNameBytes = 255;

// Appends the key of `name` in directory `dir_id` to *dst.
void AppendKey(std::string* dst, uint64_t dir_id, std::string_view name);
std::string EncodeKey(uint64_t dir_id, std::string_view name);

// Splits `key` into its directory id and name (the name views into `key`).
// Returns false if the key is too short or the name is empty or longer than kMaxNameBytes.
bool DecodeKey(std::string_view key, uint64_t* dir_id, std::string_view* name);

}  // namespace deltameta
