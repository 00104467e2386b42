// The one partition function shared by clients, servers and the compactor: a name's
// partition is a stable 64-bit hash of the name modulo the partition count.
#pragma once

#include <cstdint>
#include <string_view>

namespace deltameta {

// Same value on every host, build and run (FNV-1a followed by a 64-bit avalanche mix).
uint64_t NameHash(std::string_view name);

// Requires num_partitions > 0. Returns a value in [0, num_partitions).
uint32_t PartitionOf(std::string_view name, uint32_t num_partitions);

}  // namespace deltameta
