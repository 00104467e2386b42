// A bound on every libcephfs request once the client has mounted. libcephfs waits for the
// MDS without a timeout after the mount (client_mount_timeout bounds only the mount), so an
// MDS that dies mid-run would leave a job waiting until something outside ends it. A
// thread watches the one request in flight; one running past the bound ends the process
// with one line naming the request, the bound and the fix (an MPI job then ends too: the
// process manager tears the job down when one rank exits without finishing).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace deltameta {

class CephfsWatchdog {
 public:
  // `bound_s`: seconds a request may take; `flag`: the option that sets it (for the message).
  CephfsWatchdog(int bound_s, std::string flag);
  ~CephfsWatchdog();

  // Runs libcephfs call `call` (returning its int result) under the bound; `op` names it
  // in the message (a string literal).
  template <class Request>
  int Watch(const char* op, Request&& call) {
    op_.store(op, std::memory_order_relaxed);
    started_ns_.store(Now(), std::memory_order_release);
    const int r = call();
    started_ns_.store(0, std::memory_order_relaxed);
    return r;
  }

 private:
  static int64_t Now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void Run();

  const int bound_s_;
  const std::string flag_;
  std::atomic<const char*> op_{""};
  std::atomic<int64_t> started_ns_{0};  // 0: no request in flight
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace deltameta
