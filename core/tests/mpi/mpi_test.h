// What the MPI tests (one binary, run as a job of 4 ranks; main in mpi_test_main.cc) share:
// the job's session, and a fresh directory that every rank of the job uses.
#pragma once

#include <string>

#include "jobs/mpi_session.h"

namespace deltameta {

// The session main() started.
const MpiSession& TestSession();

// Made by rank 0 under /tmp and named to every rank; removed with everything in it once
// every rank is done with it. Collective: construct and destroy on every rank.
class SharedTempDir {
 public:
  SharedTempDir();
  ~SharedTempDir();
  SharedTempDir(const SharedTempDir&) = delete;
  SharedTempDir& operator=(const SharedTempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace deltameta
