// MPI helpers for oversubscribed nodes: waiting on MPI never spins a core (test, then
// sleep with a growing back-off), and errors end the tools the same way everywhere.
#pragma once

#include <cstdint>
#include <string>

#include <mpi.h>

#include "jobs/mpi_session.h"
#include "jobs/quiet_wait.h"  // QuietWait, QuietBarrier

namespace deltameta {

// MPI_Reduce to rank 0 of `comm`, waited for quietly. One at a time: with five or more
// nonblocking collectives outstanding, MPICH gives the inner ranks of the reduction tree
// a 272 KiB request pool that stays for the rest of the job.
void QuietReduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
// Collective: the largest peak resident memory (PeakResidentKib, util/peak_memory.h) of the
// ranks of `comm`, on rank 0.
uint64_t JobPeakResidentKib(MPI_Comm comm);
// Collective: this rank's index among the ranks of `comm` on its host (same host name), in
// rank order.
int HostRank(MPI_Comm comm);
// Collective: true on every rank iff `local_ok` is true on every rank. Otherwise the
// lowest failing rank prints its `error` (one line for the job, not one per rank).
bool AllRanksOk(bool local_ok, const char* tool, const std::string& error, MPI_Comm comm);

// Prints "<tool>: error: <message>" to stderr.
void PrintError(const char* tool, const std::string& message);
// For errors only some ranks see mid-run: prints the error and aborts the whole job with exit code 1.
[[noreturn]] void AbortJob(const char* tool, const std::string& message);

}  // namespace deltameta
