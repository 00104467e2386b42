// The metadata server job (deltameta_server, the seed guide's deltafs_bm_svr). Each MPI
// rank serves one partition from its own store <db>/r<rank>; rank 0 also answers the info
// endpoint that tells clients where every rank listens. Runs until SIGINT or SIGTERM, then
// makes its store durable, closes it and exits 0.
#pragma once

#include <string>
#include <vector>

#include <mpi.h>

#include "jobs/mpi_session.h"

namespace deltameta {

// Bytes an exchanged address may take with its terminating NUL: longer ones are cut.
constexpr int kAddressSlot = 64;

// Collective over `comm`, in the server's start-up once every rank listens: every rank's
// `mine` (as many on every rank, each "host:port"), rank-major: rank r's address p at
// r * mine.size() + p, each cut to kAddressSlot - 1 bytes. So any rank can answer info.
std::vector<std::string> ExchangeAddresses(const std::vector<std::string>& mine, MPI_Comm comm);

// Runs the job with the command line `argc`/`argv`: every rank calls it. Returns the job's
// exit code: 0 after a clean stop; 1 if the start-up failed (a store this job created is
// removed again, so the same command can be retried) or the store did not close cleanly;
// 2 for bad flags (0 after --help).
int RunServerJob(const MpiSession& mpi, int argc, char** argv);

}  // namespace deltameta
