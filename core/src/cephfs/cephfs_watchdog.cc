// The bound on libcephfs requests: see cephfs_watchdog.h.
#include "cephfs/cephfs_watchdog.h"

#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace deltameta {

CephfsWatchdog::CephfsWatchdog(int bound_s, std::string flag)
    : bound_s_(bound_s), flag_(std::move(flag)), thread_([this] { Run(); }) {}

CephfsWatchdog::~CephfsWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void CephfsWatchdog::Run() {
  // Looks a few times per bound, at least once a second: a stuck request ends the process
  // at most a quarter of the bound (or a second) after the bound.
  const auto interval = std::chrono::milliseconds(std::min(1000, bound_s_ * 250));
  const int64_t bound_ns = static_cast<int64_t>(bound_s_) * 1000000000;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, interval, [this] { return stop_; })) {
    const int64_t started = started_ns_.load(std::memory_order_acquire);
    if (started == 0 || Now() - started < bound_ns) continue;
    std::fprintf(stderr,
                 "%s: error: CephFS %s had no answer within %d s (%s): the MDS is down or unreachable: check it "
                 "with `ceph fs status` (the run's CEPH_CONF) and start it again, or raise %s if it is only slow\n",
                 program_invocation_short_name, op_.load(std::memory_order_relaxed), bound_s_, flag_.c_str(),
                 flag_.c_str());
    std::fflush(stderr);
    _exit(1);  // the stuck request holds the client's locks: no unmount, no destructors
  }
}

}  // namespace deltameta
