// What a process has cost so far, read from outside it: its CPU time over all its threads
// (the kernel's per-process CPU clock, nanosecond resolution) and its context switches,
// summed over its threads (/proc/PID/task/*/status). The ping-pong (pingpong.h) reads
// them before and after its timed calls.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace deltameta {

struct ProcessUsage {
  double cpu_s = 0;
  uint64_t voluntary = 0;    // the threads went to sleep (each a later wake-up)
  uint64_t involuntary = 0;  // the threads were preempted
};

// Zeros for what cannot be read (a process that is gone).
ProcessUsage ReadProcessUsage(pid_t pid);
// The sum over `pids`.
ProcessUsage SumProcessUsage(const std::vector<pid_t>& pids);

}  // namespace deltameta
