// MPI helpers: see mpi_util.h.
#include "jobs/mpi_util.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "util/peak_memory.h"

namespace deltameta {

void QuietReduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  MPI_Request r;
  MPI_Ireduce(in, out, count, type, op, 0, comm, &r);
  QuietWait(&r);
}

uint64_t JobPeakResidentKib(MPI_Comm comm) {
  const uint64_t mine = PeakResidentKib();
  uint64_t peak = mine;
  QuietReduce(&mine, &peak, 1, MPI_UINT64_T, MPI_MAX, comm);
  return peak;
}

int HostRank(MPI_Comm comm) {
  constexpr int kNameBytes = 256;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  char mine[kNameBytes] = {0};
  gethostname(mine, kNameBytes - 1);
  std::vector<char> all(static_cast<size_t>(kNameBytes) * size);
  MPI_Request r;
  MPI_Iallgather(mine, kNameBytes, MPI_CHAR, all.data(), kNameBytes, MPI_CHAR, comm, &r);
  QuietWait(&r);
  int index = 0;
  for (int i = 0; i < rank; i++) index += std::memcmp(&all[static_cast<size_t>(i) * kNameBytes], mine, kNameBytes) == 0;
  return index;
}

bool AllRanksOk(bool local_ok, const char* tool, const std::string& error, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int in = local_ok ? size : rank, first_failed = 0;
  MPI_Request r;
  MPI_Iallreduce(&in, &first_failed, 1, MPI_INT, MPI_MIN, comm, &r);
  QuietWait(&r);
  if (first_failed == rank) PrintError(tool, error);
  return first_failed == size;
}

void PrintError(const char* tool, const std::string& message) {
  std::fprintf(stderr, "%s: error: %s\n", tool, message.c_str());
  std::fflush(stderr);
}

void AbortJob(const char* tool, const std::string& message) {
  PrintError(tool, message);
  // Give mpiexec's output forwarding a moment: MPI_Abort tears the job down at once.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

}  // namespace deltameta
