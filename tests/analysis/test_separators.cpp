// Column attention, separators, segments, the mask and block averages, worked out by hand.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "analysis/separators.h"
#include "model/captures.h"

namespace attnscope {
namespace {

TEST(Separators, ColumnAttentionNormalisedAndThresholded) {
  // columns sum to (0.5, 2.0, 0.3, 1.2): a_hat = (0.25, 1, 0.15, 0.6)
  const at::Tensor a =
      at::tensor({0.1f, 0.5f, 0.1f, 0.3f, 0.1f, 0.5f, 0.1f, 0.3f, 0.2f, 0.5f, 0.0f, 0.3f, 0.1f, 0.5f, 0.1f, 0.3f})
          .view({1, 4, 4});
  const auto s = find_separators(a, 0.5).front();
  EXPECT_EQ(s.positions, (std::vector<int>{1, 3}));
  EXPECT_NEAR(s.column_share[0], 0.25, 1e-6);
  EXPECT_NEAR(s.column_share[3], 0.6, 1e-6);
  EXPECT_EQ(find_separators(a, 0.6).front().positions, (std::vector<int>{1, 3}));  // 0.6 >= 0.6
  EXPECT_EQ(find_separators(a, 0.61).front().positions, (std::vector<int>{1}));
}

TEST(Separators, AmongTextTokensOnlyTheSpecialColumnsAreLeftOut) {
  // columns (4.0, 1.0, 0.4, 0.8): position 0 ([CLS], say) takes everything by METHOD.md's rule;
  // among the others, a_hat = (-, 1, 0.4, 0.8) against their own maximum
  const at::Tensor columns = at::tensor({4.0f, 1.0f, 0.4f, 0.8f}).view({1, 4});
  EXPECT_EQ(separators_from_columns(columns, 0.5).front().positions, (std::vector<int>{0}));
  const auto text_only = separators_from_columns(columns, 0.5, {false, true, true, true}).front();
  EXPECT_EQ(text_only.positions, (std::vector<int>{1, 3}));
  EXPECT_NEAR(text_only.column_share[0], 4.0, 1e-6);  // reported against the text tokens' maximum
  EXPECT_NEAR(text_only.column_share[2], 0.4, 1e-6);
  EXPECT_TRUE(separators_from_columns(columns, 0.5, {false, false, false, false}).front().positions.empty());
}

TEST(Separators, SegmentsCloseAtEachSeparator) {
  EXPECT_EQ(segments_from({3, 7}, 10).size(), 3u);
  const auto s = segments_from({3, 7}, 10);
  EXPECT_EQ(s[0].first, 0);
  EXPECT_EQ(s[0].last, 3);
  EXPECT_EQ(s[1].first, 4);
  EXPECT_EQ(s[1].last, 7);
  EXPECT_EQ(s[2].first, 8);
  EXPECT_EQ(s[2].last, 9);
  EXPECT_EQ(segments_from({9}, 10).size(), 1u);  // the last token is a separator: no run after it
  EXPECT_EQ(segments_from({}, 5).size(), 1u);    // no separator: one segment
  EXPECT_EQ(segments_from({0}, 3).size(), 2u);   // [0, 0], [1, 2]
}

TEST(Separators, MaskMarksRowsAndColumns) {
  const at::Tensor m = separator_mask({1}, 3);
  const at::Tensor expected = at::tensor(std::vector<int64_t>{0, 1, 0, 1, 1, 1, 0, 1, 0}).to(at::kBool).view({3, 3});
  EXPECT_TRUE(at::equal(m, expected));
}

TEST(Separators, BlockAveragesLeaveOutTheDiagonalAndOneTokenBlocksAreUndefined) {
  // segments [0, 1] and [2, 2]
  const at::Tensor s = at::tensor({0.0f, 4.0f, 1.0f, 4.0f, 0.0f, 3.0f, 1.0f, 3.0f, 0.0f}).view({3, 3});
  const at::Tensor r = block_average(s, segments_from({1}, 3));
  EXPECT_FLOAT_EQ(r[0][1].item<float>(), 4.0f);  // (S01 + S10) / 2: the diagonal is not counted
  EXPECT_FLOAT_EQ(r[0][0].item<float>(), 4.0f);
  EXPECT_FLOAT_EQ(r[0][2].item<float>(), 2.0f);  // (S02 + S12) / 2
  EXPECT_FLOAT_EQ(r[2][1].item<float>(), 2.0f);
  EXPECT_TRUE(std::isnan(r[2][2].item<float>()));  // a one-token segment with itself has no element
}

}  // namespace
}  // namespace attnscope

namespace attnscope {
namespace {

// METHOD.md, "Decoders": a_j is the mean of A_ij over the queries that may attend to j, worked by
// hand on 4 tokens. A causal map: column sums 1.8, 0.9, 0.6, 0.7 over 4, 3, 2 and 1 queries.
TEST(DecoderColumns, MeanOverTheQueriesThatMaySeeEachKey) {
  const at::Tensor causal =
      at::tensor({1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.2, 0.3, 0.5, 0.0, 0.1, 0.1, 0.1, 0.7}, at::kFloat)
          .view({1, 1, 4, 4});
  const AttentionVisibility decoder{.causal = true, .windows = {0}};
  const at::Tensor means = column_means(causal.sum(-2), decoder);
  const std::vector<float> expected{1.8f / 4, 0.9f / 3, 0.6f / 2, 0.7f};
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(means[0][0][j].item<float>(), expected[static_cast<size_t>(j)], 1e-6) << j;
  // The first token, seen by every query, is no longer favoured for it: the last one, attended to
  // most by the one query that may, leads the means, where the first led the sums.
  EXPECT_EQ(separators_from_columns(means[0], 0.99)[0].positions, std::vector<int>{3});
  EXPECT_EQ(separators_from_columns(causal.sum(-2)[0], 0.99)[0].positions, std::vector<int>{0});
  // A window of 2 tokens: each key seen by itself and the next query only (the last by itself).
  const at::Tensor sliding =
      at::tensor({1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.4, 0.6, 0.0, 0.0, 0.0, 0.3, 0.7}, at::kFloat)
          .view({1, 1, 4, 4});
  const at::Tensor banded = column_means(sliding.sum(-2), {.causal = true, .windows = {2}});
  const std::vector<float> banded_expected{1.5f / 2, 0.9f / 2, 0.9f / 2, 0.7f};
  for (int j = 0; j < 4; ++j)
    EXPECT_NEAR(banded[0][0][j].item<float>(), banded_expected[static_cast<size_t>(j)], 1e-6) << j;
  // An encoder's columns are the sums themselves (every query sees every key: a mean would only scale).
  EXPECT_TRUE(at::equal(column_means(causal.sum(-2), {}), causal.sum(-2)));
}

}  // namespace
}  // namespace attnscope
