// Giving up on a Ceph cluster that stopped answering: see rados_give_up.h.
#include "rados/rados_give_up.h"

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "rados/rados_api.h"

namespace deltameta {
namespace {

std::atomic<bool> gave_up{false};

// Wakes the AwaitRados calls: a completion finished, or the process gave up. Never
// destroyed, as librados may finish a call while the process exits.
struct Wakeup {
  std::mutex mu;
  std::condition_variable cv;
};

Wakeup& TheWakeup() {
  static Wakeup* w = new Wakeup();
  return *w;
}

void WakeAll() {
  Wakeup& w = TheWakeup();
  std::lock_guard<std::mutex> lock(w.mu);
  w.cv.notify_all();
}

// librados runs this once the call is complete (rados_aio_is_complete is true by then).
void OnComplete(rados_completion_t, void*) { WakeAll(); }

}  // namespace

bool GaveUpOnRados() { return gave_up.load(std::memory_order_relaxed); }

void GiveUpOnRados() {
  if (!gave_up.exchange(true)) WakeAll();
}

rados_completion_t NewRadosCompletion() {
  rados_completion_t done = nullptr;
  Librados().rados_aio_create_completion2(nullptr, OnComplete, &done);
  return done;
}

int AwaitRados(rados_ioctx_t io, rados_completion_t done) {
  Wakeup& w = TheWakeup();
  {
    std::unique_lock<std::mutex> lock(w.mu);
    w.cv.wait(lock, [done] { return Librados().rados_aio_is_complete(done) != 0 || GaveUpOnRados(); });
  }
  // Cancelling a call that has finished meanwhile changes nothing: it keeps its result.
  if (Librados().rados_aio_is_complete(done) == 0) Librados().rados_aio_cancel(io, done);
  Librados().rados_aio_wait_for_complete(done);
  const int r = Librados().rados_aio_get_return_value(done);
  if (r == -ETIMEDOUT) GiveUpOnRados();
  return r;
}

}  // namespace deltameta
