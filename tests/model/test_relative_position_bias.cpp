// MPNet's relative position buckets, worked by hand (model/relative_position_bias.h): 32 buckets,
// 16 a side, offsets 0 .. 7 exact, then 8 + floor(log(d / 8) / log(128 / 8) * 8) up to 15.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "model/relative_position_bias.h"

namespace attnscope {
namespace {

TEST(RelativePositionBuckets, ExactNearLogarithmicFarEachSideItsHalf) {
  const at::Tensor b = relative_position_buckets(200, 32, 128);
  const auto bucket = [&](int64_t i, int64_t j) { return b[i][j].item<int64_t>(); };
  EXPECT_EQ(bucket(0, 0), 0);
  EXPECT_EQ(bucket(10, 3), 7);        // 7 before: exact
  EXPECT_EQ(bucket(3, 10), 16 + 7);   // 7 after: the upper half
  EXPECT_EQ(bucket(20, 12), 8);       // 8 before: log(1) = 0
  EXPECT_EQ(bucket(20, 4), 10);       // 16 before: 8 + floor(0.25 * 8)
  EXPECT_EQ(bucket(0, 64), 16 + 14);  // 64 after: 8 + floor(0.75 * 8)
  EXPECT_EQ(bucket(199, 0), 15);      // 199 before: past 128, the last bucket of its half
  EXPECT_EQ(bucket(0, 199), 31);
}

}  // namespace
}  // namespace attnscope
