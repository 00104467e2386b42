// The DeltaFS parallel compaction job (deltameta_compactor, the seed guide's
// parallel_compactor). Rank k reads the write phase's origin stores <src_dir>/r<j> with
// j % ranks == k (origin_source.h), shuffles every entry over MPI to the rank owning its
// name's partition (shuffle.h), and writes its partition, sorted, as table files ingested
// into <dst_dir>/r<k> (partition_builder.h). The compacted stores are then served
// read-only by as many server ranks as compactor ranks.
#pragma once

#include "jobs/mpi_session.h"

namespace deltameta {

// Runs the job with the command line `argc`/`argv`: every rank calls it. Returns the job's
// exit code: 0; 1 if the sources or the destination are refused, the shuffle lost entries
// or names were found in more than one source store; 2 for bad flags (0 after --help).
// What fails mid-run on some ranks only (a corrupt source store, a malformed shuffle
// batch, the partition's store not built) aborts the whole job with exit code 1.
int RunCompactorJob(const MpiSession& mpi, int argc, char** argv);

}  // namespace deltameta
