// Rotary frequencies and turning, worked by hand (model/rotary_positions.h).
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <numbers>

#include "model/rotary_positions.h"

namespace attnscope {
namespace {

// Llama 3's scaling on four frequencies of base 500 (1, 500^-1/4, 500^-1/2, 500^-3/4) with an
// original context of 16 and factors 1 and 4: wavelengths past 16 are divided by 8; 2 pi (between
// 16 / 4 and 16) is blended with weight b = (16 / 2 pi - 1) / (4 - 1): (1 - b) / 8 + b.
TEST(RotaryFrequencies, Llama3SlowsLongWavelengthsAndBlendsTheMiddle) {
  const RotaryScaling s{RotaryScaling::Kind::Llama3, 8.0, 1.0, 4.0, 16};
  const at::Tensor f = rotary_frequencies(8, 500.0, s).to(at::kDouble);
  const double b = (16 / (2 * std::numbers::pi) - 1) / 3;
  const double expected[] = {(1 - b) / 8 + b, std::pow(500.0, -0.25) / 8, std::pow(500.0, -0.5) / 8,
                             std::pow(500.0, -0.75) / 8};
  ASSERT_EQ(f.size(0), 4);
  for (int64_t i = 0; i < 4; ++i) EXPECT_NEAR(f[i].item<double>(), expected[i], 1e-6) << i;
}

TEST(RotaryFrequencies, LinearDividesThemAll) {
  const at::Tensor plain = rotary_frequencies(6, 100.0, {});
  const at::Tensor linear = rotary_frequencies(6, 100.0, {RotaryScaling::Kind::Linear, 4.0});
  EXPECT_NEAR(plain[1].item<double>(), std::pow(100.0, -2.0 / 6), 1e-7);
  EXPECT_TRUE(at::allclose(linear * 4, plain));
}

// A partial rotation turns the first r rows of each head (pairs i and i + r / 2) and leaves the rest:
// at position 1 with frequency 1, the pair (1, 0) turns to (cos 1, sin 1).
TEST(RotaryTurning, TurnsOnlyTheRotatedPart) {
  const RotaryTables t = rotary_tables(2, 2, 10000.0, {}, at::TensorOptions().dtype(at::kFloat));
  at::Tensor q = at::zeros({4, 2});  // [d = 4, n = 2]
  q[0].fill_(1.0);
  q[2].fill_(5.0);
  q[3].fill_(-2.0);
  const at::Tensor turned = rotate(q, t);
  EXPECT_NEAR(turned[0][1].item<double>(), std::cos(1.0), 1e-6);
  EXPECT_NEAR(turned[1][1].item<double>(), std::sin(1.0), 1e-6);
  EXPECT_NEAR(turned[0][0].item<double>(), 1.0, 1e-7);  // position 0: not turned
  EXPECT_TRUE(at::equal(turned.narrow(0, 2, 2), q.narrow(0, 2, 2)));
}

}  // namespace
}  // namespace attnscope
