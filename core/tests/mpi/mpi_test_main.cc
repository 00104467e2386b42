// main() of the MPI tests: every rank runs every test (they are collective); rank 0 checks
// the results and alone reports. Also the helpers of mpi_test.h.
#include <stdlib.h>

#include <filesystem>

#include <gtest/gtest.h>
#include <mpi.h>

#include "jobs/mpi_util.h"
#include "mpi_test.h"

namespace deltameta {
namespace {

const MpiSession* session = nullptr;

}  // namespace

const MpiSession& TestSession() { return *session; }

SharedTempDir::SharedTempDir() {
  char name[] = "/tmp/deltameta-mpi-XXXXXX";
  if (TestSession().rank() == 0 && mkdtemp(name) == nullptr) ADD_FAILURE() << "mkdtemp failed";
  MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, MPI_COMM_WORLD);
  path_ = name;
}

SharedTempDir::~SharedTempDir() {
  QuietBarrier(MPI_COMM_WORLD);
  std::error_code ec;
  if (TestSession().rank() == 0) std::filesystem::remove_all(path_, ec);
}

}  // namespace deltameta

int main(int argc, char** argv) {
  deltameta::MpiSession mpi(&argc, &argv);
  deltameta::session = &mpi;
  testing::InitGoogleTest(&argc, argv);
  testing::TestEventListeners& listeners = testing::UnitTest::GetInstance()->listeners();
  if (mpi.rank() != 0) delete listeners.Release(listeners.default_result_printer());
  return mpi.Finish(RUN_ALL_TESTS());
}
