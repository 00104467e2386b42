// Where the per-operation RPC work runs on an oversubscribed host. A synchronous call
// costs two wake-ups; when caller and server thread sit on different CPUs each wake-up
// crosses CPUs (an inter-processor interrupt, and the caller's CPU idles meanwhile), when
// they share one CPU it is a plain switch. So clients pin each rank to one CPU of its host
// (ranks in turn), servers pin their shared-memory loop threads the same way, and a
// server serves a pinned client's channel on a loop thread of the client's own CPU.
#pragma once

#include <vector>

namespace deltameta {

// The CPUs the calling thread may run on (its affinity mask), ascending.
std::vector<int> AllowedCpus();

// The CPU for `slot` (0, 1, ...): the allowed CPUs taken in turn. -1 if `cpus` is empty.
int CpuForSlot(const std::vector<int>& cpus, int slot);

// Restricts the calling thread to `cpu`. False, and nothing changed, if it may not run there.
bool PinCallingThread(int cpu);

// The one CPU the calling thread is pinned to, or -1 if it may run on several.
int PinnedCpu();

}  // namespace deltameta
