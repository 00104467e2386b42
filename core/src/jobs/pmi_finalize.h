// The end of a rank without MPI_Finalize: PMI-1's `finalize` message, which tells the process
// manager (Hydra's mpiexec, or Slurm's srun --mpi=pmi2, whose plugin serves PMI-1 clients
// such as this MPICH too) that the rank is done. Used by MpiSession (mpi_session.h) and by
// the preload library that ends the original prototype's ranks so (mpi_end_preload.cc).
#pragma once

#include <string>

namespace deltameta {

// Tells the PMI-1 process manager on `pmi_fd` that this rank is done (finalize and its
// acknowledgement). False if it does not answer as expected.
bool PmiFinalize(int pmi_fd);

// True if `reply` (one line, without its newline) acknowledges PMI-1 `finalize`:
// "cmd=finalize_ack" (Hydra) or with a zero return code, "cmd=finalize_ack rc=0" (Slurm).
bool IsFinalizeAck(const std::string& reply);

}  // namespace deltameta
