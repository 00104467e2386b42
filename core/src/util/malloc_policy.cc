// The tools' malloc settings: see malloc_policy.h.
#include "util/malloc_policy.h"

#include <malloc.h>

namespace deltameta {

void KeepLargeAllocationsMapped() { mallopt(M_MMAP_THRESHOLD, static_cast<int>(kLargeAllocation)); }

}  // namespace deltameta
