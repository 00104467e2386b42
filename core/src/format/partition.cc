// Partition function: see partition.h.
#include "deltameta/partition.h"

namespace deltameta {

uint64_t NameHash(std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : name) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

uint32_t PartitionOf(std::string_view name, uint32_t num_partitions) {
  return static_cast<uint32_t>(NameHash(name) % num_partitions);
}

}  // namespace deltameta
