// How the tools' processes ask glibc's malloc for memory.
#pragma once

#include <cstddef>

namespace deltameta {

// Allocations of at least this size get their own mapping, returned to the system when freed.
constexpr size_t kLargeAllocation = 128 * 1024;

// Fixes malloc's mapping threshold at kLargeAllocation. By default glibc raises it to the
// size of any mapped block that is freed, after which the stores' large buffers (memtable
// arena blocks, filter builders, read buffers) come from the heap and its per-thread
// arenas, which keep them once freed: a run 1 server's peak at its last flush was
// 0.3-0.4 MiB higher. Call first thing in main, before any thread starts.
void KeepLargeAllocationsMapped();

}  // namespace deltameta
