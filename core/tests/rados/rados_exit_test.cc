// Tests of how a process that connected to Ceph ends (rados_cluster.h): its exit keeps its
// status and skips the teardown registered before it connected, which raced with librados's
// threads (the tools aborted at exit now and then). Needs ctest's cluster (CEPH_CONF), as
// rados_fs_test.cc does; each death test runs in a process of its own, started afresh.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "rados/rados_cluster.h"
#include "test_pool.h"

namespace deltameta {
namespace {

class RadosExitDeathTest : public testing::Test {
 protected:
  // A forked child would share this process's connection, made by earlier tests.
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(RadosExitDeathTest, ExitAfterConnectingKeepsItsStatusAndSkipsEarlierTeardown) {
  EXPECT_EXIT(
      {
        std::atexit([] { std::abort(); });  // stands for the teardown librados races with
        std::string error;
        if (RadosEnv(TestPool(), &error) == nullptr) {
          std::fprintf(stderr, "%s\n", error.c_str());
          std::_Exit(5);
        }
        std::exit(3);
      },
      testing::ExitedWithCode(3), "");
}

TEST_F(RadosExitDeathTest, ExitWithoutConnectingRunsTheTeardown) {
  EXPECT_EXIT(
      {
        std::atexit([] { std::_Exit(4); });
        std::exit(3);
      },
      testing::ExitedWithCode(4), "");
}

}  // namespace
}  // namespace deltameta
