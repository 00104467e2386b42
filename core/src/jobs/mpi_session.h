// An MPI job's lifetime in one object: MPI_Init with the transports that cannot hang on
// this job's placement, and an end that cannot hang either.
//
// MPICH here runs over UCX 1.13, whose TCP transport can hang in MPI_Finalize: a rank's
// disconnect waits for a peer that has already moved on to the launcher's final barrier and
// no longer progresses (seen in 2 of 5 four-rank jobs on one host with UCX_TLS=tcp,self, in
// 5 of 6 compactions in a container without cross-memory attach, where UCX sends large
// messages over TCP, and in every run across containers). So:
//  - a job whose ranks all share one host (the launcher says so: Hydra's MPI_LOCALNRANKS
//    equal to PMI_SIZE, or Slurm's SLURM_STEP_NUM_NODES=1) gets UCX_TLS=self,sm unless the
//    user set UCX_TLS: shared memory only, with cross-memory attach where the host allows it;
//    and UCX_NET_DEVICES=lo unless the user set it: at MPI_Init UCX lists the network
//    devices that have an address, then opens its transports on each, and a device removed
//    between the two (a Docker network going away) fails MPI_Init ("init_worker No such
//    device"), which on one host none but loopback is needed for;
//  - any other job (ranks on several hosts, or a transport list the user chose) ends, once
//    every rank has finished its work, by telling the process manager it is done (PMI-1
//    `finalize`, the same message MPI_Finalize ends with) and exiting, without UCX's
//    disconnect. Nothing is lost: a rank's results are written before it gets there. The
//    process manager is Hydra (mpiexec) or Slurm's srun --mpi=pmi2: both speak PMI-1 here.
#pragma once

#include <string>
#include <vector>

#include <mpi.h>
#include <nlohmann/json_fwd.hpp>

namespace deltameta {

class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  // Ends the job as Finish(0) would, if Finish was not called.
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Collective: waits (quietly) until every rank got here, then ends MPI. Returns
  // `exit_code` after MPI_Finalize, or exits the process with it (see the top of this file).
  int Finish(int exit_code);

 private:
  int rank_ = 0, size_ = 1;
  // True when this job's transports are shared memory alone (set by this session or the
  // user): Finish then ends with MPI_Finalize, which cannot hang over shared memory.
  bool shared_memory_only_ = false;
  bool finished_ = false;
};

// Where the ranks of the (only) session of this process run, for its results:
// {"rank_hosts": [host name of rank 0, 1, ...] (gathered at MPI_Init; empty on ranks other
// than 0), "hosts": distinct host count, "ucx_tls": the UCX transport list or "default",
// "ucx_net_devices": UCX's network devices or "default"}.
nlohmann::json PlacementJson();

}  // namespace deltameta
