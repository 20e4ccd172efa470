// Linear CKA (docs/compare.md) on matrices small enough to work out by hand.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>

#include "compare/linear_cka.h"
#include "base/error.h"

namespace attnscope {
namespace {

at::Tensor matrix(std::vector<double> values, int64_t rows, int64_t cols) {
  return at::tensor(values, at::kDouble).reshape({rows, cols});
}

TEST(LinearCka, OneFeatureIsTheSquaredCorrelation) {
  // centred: x = (-1, 0, 1), y = (-1, 1, 0); (x.y)^2 / (|x|^2 |y|^2) = 1 / 4
  EXPECT_NEAR(linear_cka(matrix({1, 2, 3}, 3, 1), matrix({1, 3, 2}, 3, 1)), 0.25, 1e-12);
}

TEST(LinearCka, TwoFeaturesAgainstOneByHand) {
  // Xc^T Xc = [[2/3, -1/3], [-1/3, 2/3]] (Frobenius sqrt(10) / 3), Yc^T Yc = 2/3, Yc^T Xc = (2/3, -1/3)
  // CKA = (5/9) / (sqrt(10) / 3 * 2/3) = 5 / (2 sqrt(10))
  EXPECT_NEAR(linear_cka(matrix({1, 0, 0, 1, 0, 0}, 3, 2), matrix({1, 0, 0}, 3, 1)), 5.0 / (2.0 * std::sqrt(10.0)),
              1e-12);
}

TEST(LinearCka, IsOneUnderRotationScaleAndShift) {
  const at::Tensor x = at::randn({20, 4}, at::kDouble);
  const at::Tensor q = std::get<0>(at::linalg_qr(at::randn({4, 4}, at::kDouble)));
  EXPECT_NEAR(linear_cka(x, 3.0 * at::matmul(x, q) + 7.0), 1.0, 1e-12);
  EXPECT_NEAR(linear_cka(x, x.to(at::kFloat)), 1.0, 1e-6);
}

TEST(LinearCka, IsSymmetricAndBetweenZeroAndOne) {
  const at::Tensor x = at::randn({15, 3}, at::kDouble), y = at::randn({15, 5}, at::kDouble);
  const double xy = linear_cka(x, y);
  EXPECT_NEAR(xy, linear_cka(y, x), 1e-12);
  EXPECT_GE(xy, 0.0);
  EXPECT_LE(xy, 1.0);
}

TEST(LinearCka, IsUndefinedForAConstantRepresentation) {
  EXPECT_TRUE(std::isnan(linear_cka(at::ones({5, 2}, at::kDouble), at::randn({5, 2}, at::kDouble))));
}

TEST(LinearCka, CrossMatrixHoldsEveryPair) {
  const at::Tensor x = at::randn({3, 10, 4}, at::kDouble), y = at::randn({2, 10, 6}, at::kDouble);
  const at::Tensor all = cross_linear_cka(x, y);
  ASSERT_EQ(all.sizes(), (at::IntArrayRef{3, 2}));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j) EXPECT_NEAR(all[i][j].item<double>(), linear_cka(x[i], y[j]), 1e-12);
}

TEST(LinearCka, PairedIsTheDiagonalOfTheCrossMatrix) {
  const at::Tensor x = at::randn({2, 3, 10, 4}), y = at::randn({2, 3, 10, 4});
  const at::Tensor all = cross_linear_cka(x, y);
  EXPECT_TRUE(at::allclose(paired_linear_cka(x, y), all.diagonal(0, 1, 2), 1e-6, 1e-9));
  EXPECT_THROW(paired_linear_cka(x, y.slice(2, 0, 9)), Error);
}

TEST(LinearCka, RefusesDifferentTokenCounts) {
  EXPECT_THROW(linear_cka(at::randn({4, 2}), at::randn({5, 2})), Error);
  EXPECT_THROW(cross_linear_cka(at::randn({4, 2}), at::randn({4, 2})), Error);
}

}  // namespace
}  // namespace attnscope
