// Tests of giving up on a Ceph cluster (rados_give_up.h) that need no cluster: once a
// process gave up, its exit keeps its status and skips the teardown registered before,
// which would otherwise race with librados's threads still in a timed-out call.
#include "rados/rados_give_up.h"

#include <cstdlib>

#include <gtest/gtest.h>

namespace deltameta {
namespace {

TEST(RadosGiveUpDeathTest, ExitAfterGivingUpKeepsItsStatusAndSkipsEarlierTeardown) {
  EXPECT_EXIT(
      {
        std::atexit([] { std::abort(); });  // stands for librados's teardown, registered before
        GiveUpOnRados();
        std::exit(3);
      },
      testing::ExitedWithCode(3), "");
}

TEST(RadosGiveUpDeathTest, ExitWithoutGivingUpRunsTheTeardown) {
  EXPECT_EXIT(
      {
        std::atexit([] { std::_Exit(4); });
        std::exit(3);
      },
      testing::ExitedWithCode(4), "");
}

}  // namespace
}  // namespace deltameta
