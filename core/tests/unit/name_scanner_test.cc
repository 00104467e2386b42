// Tests util/name_scanner.h: literals and digit runs consumed left to right, a failed step
// leaving the cursor in place, and the rest compared whole.
#include "util/name_scanner.h"

#include <gtest/gtest.h>

namespace deltameta {
namespace {

TEST(NameScannerTest, ReadsLiteralsAndDigitsInTurn) {
  NameScanner table("p12-000345.sst");
  std::string_view partition, number;
  ASSERT_TRUE(table.Literal("p"));
  ASSERT_TRUE(table.Digits(1, &partition));
  ASSERT_TRUE(table.Literal("-"));
  ASSERT_TRUE(table.Digits(6, &number));
  EXPECT_EQ(partition, "12");
  EXPECT_EQ(number, "000345");
  EXPECT_TRUE(table.RestIs({".log", ".sst"}));
  EXPECT_FALSE(table.AtEnd());
  ASSERT_TRUE(table.Literal(".sst"));
  EXPECT_TRUE(table.AtEnd());
  EXPECT_TRUE(table.RestIs({""}));
}

TEST(NameScannerTest, AFailedStepLeavesTheCursorWhereItWas) {
  NameScanner name("r7");
  EXPECT_FALSE(name.Literal("staging-"));
  EXPECT_FALSE(name.Digits());
  ASSERT_TRUE(name.Literal("r"));
  EXPECT_FALSE(name.Literal("rr"));
  ASSERT_TRUE(name.Digits());
  EXPECT_TRUE(name.AtEnd());
}

TEST(NameScannerTest, DigitsTakesTheWholeRunAndNeedsItsMinimum) {
  NameScanner short_run("p1-12345.sst");
  ASSERT_TRUE(short_run.Literal("p") && short_run.Digits() && short_run.Literal("-"));
  EXPECT_FALSE(short_run.Digits(6)) << "five digits are not six";
  EXPECT_TRUE(short_run.Digits(5));
  EXPECT_TRUE(short_run.RestIs({".sst"}));
  NameScanner none("");
  EXPECT_FALSE(none.Digits());
  EXPECT_TRUE(none.Digits(0));
  EXPECT_FALSE(none.RestIs({".sst"}));
}

}  // namespace
}  // namespace deltameta
