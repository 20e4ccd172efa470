// The measures of two runs with the same tokens, on cases worked by hand: the Jaccard index of two
// pair sets and the sums the attention cosine, largest difference and relative change of S are
// made of.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "compare/map_pair_sums.h"
#include "compare/text_comparison.h"
#include "base/error.h"

namespace attnscope {
namespace {

// A mask over n tokens with the given pairs (i < j).
PairMask mask(int n, const std::vector<std::pair<int, int>>& pairs) {
  PairMask m(n);
  for (int i = 0; i < n; ++i) {
    std::vector<uint8_t> row(static_cast<size_t>(n), 0);
    for (const auto& [a, b] : pairs)
      if (a == i) row[static_cast<size_t>(b - i - 1)] = 1;
    m.set_row(i, row.data());
  }
  return m;
}

TEST(PairMeasures, JaccardByHand) {
  // A = {(0,1), (1,2), (2,3)}, B = {(1,2), (0,3)}: one pair in both, four in either.
  EXPECT_DOUBLE_EQ(*jaccard_index(mask(4, {{0, 1}, {1, 2}, {2, 3}}), mask(4, {{1, 2}, {0, 3}})), 0.25);
  EXPECT_DOUBLE_EQ(*jaccard_index(mask(4, {{0, 2}}), mask(4, {{0, 2}})), 1.0);
  EXPECT_DOUBLE_EQ(*jaccard_index(mask(4, {{0, 2}}), mask(4, {})), 0.0);
  EXPECT_FALSE(jaccard_index(mask(4, {}), mask(4, {})).has_value()) << "no pair in either: undefined";
  // Past the first byte of the packed bits: 20 tokens, 190 pairs.
  EXPECT_DOUBLE_EQ(*jaccard_index(mask(20, {{0, 1}, {17, 19}, {18, 19}}), mask(20, {{17, 19}, {18, 19}})), 2.0 / 3.0);
  EXPECT_THROW(jaccard_index(mask(4, {}), mask(5, {})), Error);
}

TEST(PairMeasures, MapSumsByHand) {
  // a = [[1, 0], [0, 1]], b = [[1, 1], [0, 0]]: <a, b> = 1, |a|^2 = |b|^2 = 2, b - a = [[0, 1], [0, -1]]
  const at::Tensor a = at::tensor({1.0f, 0.0f, 0.0f, 1.0f}).reshape({1, 2, 2});
  const at::Tensor b = at::tensor({1.0f, 1.0f, 0.0f, 0.0f}).reshape({1, 2, 2});
  const MapPairSums s = map_pair_sums(at::cat({a, b}), at::cat({b, b}));
  EXPECT_DOUBLE_EQ(s.dot[0], 1.0);
  EXPECT_DOUBLE_EQ(s.norm_a[0], 2.0);
  EXPECT_DOUBLE_EQ(s.norm_b[0], 2.0);
  EXPECT_DOUBLE_EQ(s.max_difference[0], 1.0);
  EXPECT_DOUBLE_EQ(s.difference_norm[0], 2.0);
  // attention cosine = 1 / sqrt(2 * 2) = 0.5; relative change of S = sqrt(2 / 2) = 1
  EXPECT_DOUBLE_EQ(s.dot[0] / std::sqrt(s.norm_a[0] * s.norm_b[0]), 0.5);
  EXPECT_DOUBLE_EQ(s.max_difference[1], 0.0);  // b against itself
  EXPECT_DOUBLE_EQ(s.difference_norm[1], 0.0);
  EXPECT_THROW(map_pair_sums(a, at::zeros({1, 2, 3})), Error);
}

}  // namespace
}  // namespace attnscope
