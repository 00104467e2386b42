// Giving up on a Ceph cluster that stopped answering. librados lets each call wait up to
// DELTAMETA_RADOS_TIMEOUT; a job whose OSD is gone then used to wait one full timeout per
// call still to make (the failing write, RocksDB's background jobs, closing its logs,
// unlocking), ending at several times the timeout. Instead, once one call of the process
// has timed out, the cluster is taken to be gone: every later call fails at once with
// kNotTried, and the calls still waiting are cancelled, so the job ends about one timeout
// after Ceph stopped answering. The RADOS file system makes every call that may wait on
// Ceph through RadosWait (RadosCall where librados has no asynchronous form). Internal to
// the core.
#pragma once

#include <cerrno>

#include <rados/librados.h>

#include "rados/rados_api.h"

namespace deltameta {

// What a call returns when it was not made, or was cancelled, because the process gave up
// on the cluster (FromErrno names it).
constexpr int kNotTried = -ECANCELED;

// Whether a call of this process has timed out.
bool GaveUpOnRados();
// Records that a call timed out and wakes every AwaitRados, which then cancels its call.
void GiveUpOnRados();

// Makes `call` (a librados call returning 0, a count, or a negative errno) unless the
// process gave up on the cluster; gives up if it times out.
template <class Call>
int RadosCall(Call&& call) {
  if (GaveUpOnRados()) return kNotTried;
  const int r = call();
  if (r == -ETIMEDOUT) GiveUpOnRados();
  return r;
}

// A completion for an asynchronous call that AwaitRados can wait for (release it with
// rados_aio_release as usual).
rados_completion_t NewRadosCompletion();
// Waits for the asynchronous call of `done` (made with a NewRadosCompletion on `io`) and
// returns its result. If the process gives up on the cluster meanwhile, the call is
// cancelled (kNotTried) instead of waiting out its own timeout.
int AwaitRados(rados_ioctx_t io, rados_completion_t done);

// Starts an asynchronous call on `io` with `start(completion)` (a librados rados_aio_*
// call returning 0 or a negative errno) and waits for it as AwaitRados does: the form of
// every call that may wait on Ceph, so that none outlasts giving up.
template <class Start>
int RadosWait(rados_ioctx_t io, Start&& start) {
  if (GaveUpOnRados()) return kNotTried;
  rados_completion_t done = NewRadosCompletion();
  int r = start(done);
  if (r == 0) r = AwaitRados(io, done);
  Librados().rados_aio_release(done);
  return r;
}

}  // namespace deltameta
