// The peak memory of this process, as the tools report it in their phase documents
// ("peak_resident_kib", core/doc/formats.md "Result JSON"): how much of it stays bounded by the
// store settings whatever --n is what the scale tests check (integration/test_bounded_memory.py).
#pragma once

#include <cstdint>

namespace deltameta {

// The process's peak resident memory so far in KiB (VmHWM of /proc/self/status: heap,
// stacks, code and shared memory it touched); 0 where the kernel does not say.
uint64_t PeakResidentKib();

}  // namespace deltameta
