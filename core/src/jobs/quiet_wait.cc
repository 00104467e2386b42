// Quiet MPI waits: see quiet_wait.h.
#include "jobs/quiet_wait.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace deltameta {

void QuietWait(MPI_Request* request) {
  auto pause = std::chrono::microseconds(10);
  for (;;) {
    int done = 0;
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

void QuietBarrier(MPI_Comm comm) {
  MPI_Request r;
  MPI_Ibarrier(comm, &r);
  QuietWait(&r);
}

}  // namespace deltameta
