// Relative position buckets worked by hand (model/relative_position_bias.h): MPNet's 32 buckets, 16
// a side, offsets 0 .. 7 exact, then 8 + floor(log(d / 8) / log(128 / 8) * 8) up to 15; DeBERTa's
// signed log buckets below.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>

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

// DeBERTa's signed log buckets of i - j with 8 buckets up to 16 positions: |i - j| <= 4 kept; beyond,
// 4 + ceil(log(|i - j| / 4) / log(15 / 4) * 3) with its sign.
TEST(LogBucketPositions, KeptNearLogarithmicFarWithTheirSign) {
  const at::Tensor b = log_bucket_positions(40, 8, 16);
  const auto bucket = [&](int64_t i, int64_t j) { return b[i][j].item<int64_t>(); };
  EXPECT_EQ(bucket(5, 5), 0);
  EXPECT_EQ(bucket(7, 3), 4);
  EXPECT_EQ(bucket(3, 7), -4);
  EXPECT_EQ(bucket(10, 5), 4 + static_cast<int64_t>(std::ceil(std::log(5.0 / 4) / std::log(15.0 / 4) * 3)));  // 5
  EXPECT_EQ(bucket(0, 15), -(4 + 3));
  EXPECT_EQ(bucket(39, 0), 4 + static_cast<int64_t>(std::ceil(std::log(39.0 / 4) / std::log(15.0 / 4) * 3)));  // 9
  EXPECT_TRUE(at::equal(log_bucket_positions(6, 0, 0), at::arange(6).unsqueeze(1) - at::arange(6).unsqueeze(0)));
}

}  // namespace
}  // namespace attnscope
