// The MD-Workbench pattern's objects: see objects.h.
#include "mdworkbench/objects.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>

namespace deltameta {
namespace {

uint64_t SplitMix(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t SeedOf(const ObjectId& id) {
  uint64_t s = (static_cast<uint64_t>(id.owner) << 32) ^ id.set;
  SplitMix(&s);
  s ^= id.index * 0xd1b54a32d192ed03ull;
  return s;
}

// An object is made of blocks of kBlockBytes (the last one shorter): word w of block b
// (its bytes 8w .. 8w+7, in the host's order) is word w of a fixed random pattern XOR a
// key drawn from the object and b. So every word depends on the object, the bytes look
// random (as a compressor sees them), and making or checking them costs a pass over
// memory, not a random number per word.
constexpr size_t kBlockWords = 512;
constexpr size_t kBlockBytes = kBlockWords * 8;

const uint64_t* Pattern() {
  static const std::array<uint64_t, kBlockWords> pattern = [] {
    std::array<uint64_t, kBlockWords> p;
    uint64_t state = 0;
    for (uint64_t& w : p) w = SplitMix(&state);
    return p;
  }();
  return pattern.data();
}

// Writes the first n (<= kBlockBytes) bytes of block `block` of object `id` to out.
void Block(const ObjectId& id, uint64_t block, size_t n, char* out) {
  uint64_t state = SeedOf(id) ^ block;
  const uint64_t key = SplitMix(&state);
  const uint64_t* pattern = Pattern();
  size_t w = 0;
  for (; 8 * w + 8 <= n; w++) {
    const uint64_t word = pattern[w] ^ key;
    std::memcpy(out + 8 * w, &word, 8);
  }
  if (8 * w < n) {
    const uint64_t word = pattern[w] ^ key;
    std::memcpy(out + 8 * w, &word, n - 8 * w);
  }
}

}  // namespace

std::string DataSetName(uint32_t owner, uint32_t set) {
  return "r" + std::to_string(owner) + ".d" + std::to_string(set);
}

uint64_t DataSetDirId(uint32_t owner, uint32_t set) { return ((static_cast<uint64_t>(owner) << 32) | set) + 1; }

std::string ObjectName(const ObjectId& id) {
  char name[64];
  std::snprintf(name, sizeof(name), "o%x.%x.%llx", id.owner, id.set, static_cast<unsigned long long>(id.index));
  return name;
}

void ObjectBytes(const ObjectId& id, uint64_t size, std::string* out) {
  out->resize(size);
  for (uint64_t at = 0; at < size; at += kBlockBytes) {
    Block(id, at / kBlockBytes, static_cast<size_t>(std::min<uint64_t>(size - at, kBlockBytes)), &(*out)[at]);
  }
}

bool IsObjectBytes(const ObjectId& id, uint64_t size, std::string_view data) {
  if (data.size() != size) return false;
  char expected[kBlockBytes];
  for (uint64_t at = 0; at < size; at += kBlockBytes) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(size - at, kBlockBytes));
    Block(id, at / kBlockBytes, n, expected);
    if (std::memcmp(expected, &data[at], n) != 0) return false;
  }
  return true;
}

ObjectId ObjectSpace::Handled(uint32_t target, uint32_t set, uint64_t k, bool replace) const {
  return ObjectId{target, set, replace ? k : k % precreate};
}

ObjectId ObjectSpace::Replacement(uint32_t target, uint32_t set, uint64_t k) const {
  return ObjectId{target, set, precreate + k};
}

}  // namespace deltameta
