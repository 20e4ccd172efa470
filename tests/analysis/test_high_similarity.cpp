// S_hat, the threshold and the pair list, on matrices written out by hand.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "analysis/high_similarity.h"

namespace attnscope {
namespace {

at::Tensor symmetric(int n, std::vector<std::tuple<int, int, float>> entries) {
  at::Tensor s = at::zeros({1, n, n});
  for (auto [i, j, v] : entries) {
    s[0][i][j] = v;
    s[0][j][i] = v;
  }
  return s;
}

at::Tensor all(int n) { return at::ones({n}, at::kBool); }

std::vector<std::pair<int, int>> positions(const std::vector<TokenPair>& pairs) {
  std::vector<std::pair<int, int>> out;
  for (const auto& p : pairs) out.emplace_back(p.i, p.j);
  return out;
}

TEST(HighSimilarity, NormalisedByTheOffDiagonalMaximum) {
  // max is 10 at (1, 3); S_hat: (0,1) 0.2, (0,2) 0.3, (1,3) 1, (2,3) 0.29
  const auto r = high_similarity(symmetric(4, {{0, 1, 2}, {0, 2, 3}, {1, 3, 10}, {2, 3, 2.9f}}), all(4), 0.3);
  EXPECT_EQ(r.scale[0], 10.0f);
  EXPECT_EQ(positions(r.pairs[0]), (std::vector<std::pair<int, int>>{{0, 2}, {1, 3}}));  // 0.3 counts: S_hat >= tau
  EXPECT_FLOAT_EQ(r.pairs[0][0].value, 0.3f);
  EXPECT_FLOAT_EQ(r.pairs[0][1].value, 1.0f);
}

TEST(HighSimilarity, TiesAtTheMaximumAreAllPairs) {
  const auto r = high_similarity(symmetric(3, {{0, 1, 5}, {1, 2, 5}, {0, 2, 1}}), all(3), 0.5);
  EXPECT_EQ(positions(r.pairs[0]), (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}}));
}

TEST(HighSimilarity, NegativeSimilaritiesNeverPass) {
  const auto r = high_similarity(symmetric(3, {{0, 1, 4}, {0, 2, -8}, {1, 2, -1}}), all(3), 0.3);
  EXPECT_EQ(positions(r.pairs[0]), (std::vector<std::pair<int, int>>{{0, 1}}));
}

TEST(HighSimilarity, AHeadWhoseMaximumIsNotPositiveHasNoPairs) {
  const auto negative = high_similarity(symmetric(3, {{0, 1, -1}, {0, 2, -2}, {1, 2, -3}}), all(3), 0.3);
  EXPECT_TRUE(negative.pairs[0].empty());
  EXPECT_EQ(negative.scale[0], -1.0f);
  const auto zero = high_similarity(at::zeros({1, 3, 3}), all(3), 0.3);
  EXPECT_TRUE(zero.pairs[0].empty());
}

TEST(HighSimilarity, LeftOutTokensTakeNoPartInTheMaximumOrThePairs) {
  // token 0 ([CLS], say) has the largest similarity; leaving it out makes (1, 2) the maximum
  const at::Tensor s = symmetric(4, {{0, 1, 100}, {1, 2, 4}, {2, 3, 2}, {1, 3, 1}});
  const auto with = high_similarity(s, all(4), 0.3);
  EXPECT_EQ(positions(with.pairs[0]), (std::vector<std::pair<int, int>>{{0, 1}}));
  const auto without = high_similarity(s, at::tensor(std::vector<int64_t>{0, 1, 1, 1}).to(at::kBool), 0.3);
  EXPECT_EQ(without.scale[0], 4.0f);
  EXPECT_EQ(positions(without.pairs[0]), (std::vector<std::pair<int, int>>{{1, 2}, {2, 3}}));
}

TEST(HighSimilarity, ThePairsAreExactlyTheUpperTriangleOfTheMask) {
  const at::Tensor c = at::randn({5, 12, 6});
  at::Tensor s = at::matmul(c, c.transpose(1, 2));
  s.diagonal(0, 1, 2).zero_();
  const auto r = high_similarity(s, all(12), 0.3);
  for (int k = 0; k < 5; ++k) {
    const at::Tensor top = s[k].masked_select(at::eye(12).logical_not().to(at::kBool)).max();
    const at::Tensor mask = (s[k] / top >= 0.3).triu(1);
    EXPECT_EQ(static_cast<int64_t>(r.pairs[static_cast<size_t>(k)].size()), mask.sum().item<int64_t>());
    for (const auto& p : r.pairs[static_cast<size_t>(k)]) EXPECT_TRUE(mask[p.i][p.j].item<bool>());
  }
}

}  // namespace
}  // namespace attnscope
