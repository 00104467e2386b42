// Waiting on MPI without spinning a core, for oversubscribed nodes: test, then sleep with a
// growing back-off. Used by the tools (mpi_util.h) and by the preload library that ends the
// original prototype's ranks (mpi_end_preload.cc).
#pragma once

#include <mpi.h>

namespace deltameta {

// Completes `request`, sleeping between tests (10 us growing to 1 ms).
void QuietWait(MPI_Request* request);
void QuietBarrier(MPI_Comm comm);

}  // namespace deltameta
