// Each row's entropy (the head roles' broad score): rows worked out by hand, and rows enough to
// span several of the CPU's chunks against the same sums made in float64 a term at a time.
#include <c10/core/InferenceMode.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "analysis/row_entropy.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

TEST(RowEntropy, RowsByHand) {
  const at::Tensor maps = at::tensor({0.5, 0.5, 0.0, 0.0,  // two keys alike: log 2
                                      1.0, 0.0, 0.0, 0.0,  // one key: 0, its zeros adding nothing
                                      0.25, 0.25, 0.25, 0.25, 0.7, 0.2, 0.1, 0.0})
                              .view({2, 2, 4});
  const double want[] = {std::log(2.0), 0.0, std::log(4.0),
                         -(0.7 * std::log(0.7) + 0.2 * std::log(0.2) + 0.1 * std::log(0.1))};
  for (const at::ScalarType type : {at::kDouble, at::kFloat, at::kBFloat16}) {
    const at::Tensor got = row_entropy(maps.to(type));
    ASSERT_EQ(got.sizes(), (at::IntArrayRef{2, 2}));
    ASSERT_EQ(got.scalar_type(), at::kDouble);
    // bfloat16 holds 0.7, 0.2 and 0.1 to 3e-3; the terms are made from the values it holds.
    const double tolerance = type == at::kDouble ? 1e-15 : type == at::kFloat ? 1e-7 : 2e-2;
    for (int64_t i = 0; i < 4; ++i) EXPECT_NEAR(got.view({4})[i].item<double>(), want[i], tolerance) << i;
  }
}

// A row of subnormal values and one of a single tiny value beside a large one: finite, as the
// terms a float64 sum of them gives.
TEST(RowEntropy, TinyValuesAddWhatTheyHold) {
  const float subnormal = std::numeric_limits<float>::denorm_min() * 1000;
  const at::Tensor maps = at::tensor({1.0f - 1e-30f, 1e-30f, subnormal, 0.0f}).view({1, 4});
  const double t = 1e-30f, s = subnormal;
  const double got = row_entropy(maps).item<double>();
  EXPECT_TRUE(std::isfinite(got));
  EXPECT_NEAR(got, -(t * std::log(t) + s * std::log(s)), 1e-27);
}

// 3 x 70 rows of 9,000 keys: several chunks of rows on each thread, the last one shorter; also
// under inference mode, as the pipeline runs (each thread writes the sums, then an inference tensor).
TEST(RowEntropy, ChunksOfRowsGiveTheTermByTermSums) {
  at::manual_seed(7);
  const at::Tensor maps = at::softmax(at::randn({3, 70, 9000}) * 3, 2);
  const at::Tensor d = maps.to(at::kDouble);
  const at::Tensor want = -(d * d.log()).sum(2);
  EXPECT_LT((row_entropy(maps) - want).abs().max().item<double>(), 1e-6 * want.abs().max().item<double>());
  EXPECT_LT((row_entropy(d) - want).abs().max().item<double>(), 1e-12);
  {
    const c10::InferenceMode inference;
    EXPECT_LT((row_entropy(maps) - want).abs().max().item<double>(), 1e-6 * want.abs().max().item<double>());
  }
  const at::Tensor on_device = row_entropy(maps.to(test::test_device().device));
  EXPECT_EQ(on_device.device(), test::test_device().device);
  EXPECT_LT((on_device.cpu() - want).abs().max().item<double>(), 1e-6 * want.abs().max().item<double>());
}

TEST(RowEntropy, NoRowsNoSums) {
  EXPECT_EQ(row_entropy(at::zeros({2, 0, 5})).sizes(), (at::IntArrayRef{2, 0}));
  EXPECT_EQ(row_entropy(at::zeros({2, 3, 0})).sizes(), (at::IntArrayRef{2, 3}));
}

}  // namespace
}  // namespace attnscope
