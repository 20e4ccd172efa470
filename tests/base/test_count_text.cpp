#include "base/count_text.h"

#include <gtest/gtest.h>

namespace attnscope {
namespace {

TEST(CountText, DigitsInGroupsOfThree) {
  EXPECT_EQ(digit_groups(0), "0");
  EXPECT_EQ(digit_groups(999), "999");
  EXPECT_EQ(digit_groups(1000), "1,000");
  EXPECT_EQ(digit_groups(8192), "8,192");
  EXPECT_EQ(digit_groups(100000), "100,000");
  EXPECT_EQ(digit_groups(33550336), "33,550,336");
  EXPECT_EQ(digit_groups(18446744073709551615ull), "18,446,744,073,709,551,615");
}

TEST(CountText, ANounIsSingularForOneOnly) {
  EXPECT_EQ(count(0, "pair"), "0 pairs");
  EXPECT_EQ(count(1, "token"), "1 token");
  EXPECT_EQ(count(2, "window"), "2 windows");
  EXPECT_EQ(count(1024, "token"), "1,024 tokens");
}

}  // namespace
}  // namespace attnscope
