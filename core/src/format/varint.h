// Unsigned LEB128 varints (7 bits a byte, least significant first) and zigzag signed
// mapping, for the compact stat encoding. Decoding is strict: a value must fit its type
// and be written in the fewest bytes, so every value has exactly one encoding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace deltameta {

constexpr size_t kMaxVarint64Bytes = 10;

// Writes `v` to `out` (room for kMaxVarint64Bytes) and returns the bytes written.
inline size_t PutVarint(char* out, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  out[n++] = static_cast<char>(v);
  return n;
}

// Reads one varint of at most `max_bits` significant bits from the front of *in and
// advances past it. False if it is truncated, too large, or not in its shortest form.
inline bool GetVarint(std::string_view* in, int max_bits, uint64_t* v) {
  uint64_t result = 0;
  for (size_t i = 0; i < in->size() && 7 * static_cast<int>(i) < max_bits; i++) {
    const uint64_t byte = static_cast<uint8_t>((*in)[i]);
    const int shift = 7 * static_cast<int>(i);
    if (max_bits - shift < 7 && (byte & 0x7f) >> (max_bits - shift) != 0) return false;  // too large
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      if (byte == 0 && i > 0) return false;  // a trailing zero byte: not the shortest form
      *v = result;
      in->remove_prefix(i + 1);
      return true;
    }
  }
  return false;
}

inline uint64_t ZigZag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
inline int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

}  // namespace deltameta
