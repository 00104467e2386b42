// Little-endian fixed-width integer load/store shared by the stat and wire encodings.
#pragma once

#include <cstdint>

namespace deltameta {

template <typename T>
inline void StoreLE(char* out, T v) {
  for (size_t i = 0; i < sizeof(T); i++) out[i] = static_cast<char>(v >> (8 * i));
}

template <typename T>
inline T LoadLE(const char* in) {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); i++) v |= static_cast<T>(static_cast<uint8_t>(in[i])) << (8 * i);
  return v;
}

}  // namespace deltameta
