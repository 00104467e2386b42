// The MD-Workbench pattern's objects: see objects.h.
#include "mdworkbench/objects.h"

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

// Calls `chunk(bytes, n)` with the object's bytes, 8 at a time (the last chunk shorter).
template <typename F>
bool ForEachChunk(const ObjectId& id, uint64_t size, F chunk) {
  uint64_t state = SeedOf(id);
  for (uint64_t at = 0; at < size; at += 8) {
    const uint64_t word = SplitMix(&state);
    char bytes[8];
    std::memcpy(bytes, &word, 8);
    if (!chunk(at, bytes, static_cast<size_t>(size - at < 8 ? size - at : 8))) return false;
  }
  return true;
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
  ForEachChunk(id, size, [out](uint64_t at, const char* bytes, size_t n) {
    std::memcpy(&(*out)[at], bytes, n);
    return true;
  });
}

bool IsObjectBytes(const ObjectId& id, uint64_t size, std::string_view data) {
  if (data.size() != size) return false;
  return ForEachChunk(
      id, size, [data](uint64_t at, const char* bytes, size_t n) { return std::memcmp(&data[at], bytes, n) == 0; });
}

ObjectId ObjectSpace::Handled(uint32_t target, uint32_t set, uint64_t iteration, uint64_t f, bool replace) const {
  const uint64_t k = iteration * per_iteration + f;
  return ObjectId{target, set, replace ? k : k % precreate};
}

ObjectId ObjectSpace::Replacement(uint32_t target, uint32_t set, uint64_t iteration, uint64_t f) const {
  return ObjectId{target, set, precreate + iteration * per_iteration + f};
}

}  // namespace deltameta
