// A causal map's pairs found a block of rows at a time (analysis/causal_map_pairs.h): the scale,
// mask, counts and values that the scan of symmetric_pair_map's matrix of the whole map finds, to
// the bit, whatever the blocks' heights and the keys they hold (a decoder's rows up to past their
// own, a sliding window's band), with tokens left out, repeated tokens, sentences, ties, and keys
// not held that weigh in the scale.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "analysis/causal_map_pairs.h"
#include "analysis/text_analysis.h"
#include "base/error.h"

namespace attnscope {
namespace {

// A causal map of n tokens: row i weighs keys 0 .. i, or those within `window` positions of it.
at::Tensor causal_map(int64_t n, int64_t window, uint64_t seed) {
  at::manual_seed(seed);
  at::Tensor map = at::rand({n, n}).tril_();
  if (window > 0) map.triu_(-(window - 1));
  map[40][30] = map[90][75] = 1.5f;  // a tie at the maximum, within any window of 16 or more
  return map;
}

// Hands `map` out in blocks of `height` rows, each over the keys its rows may see widened by
// `spare` on both sides (as the forward's blocks are lane-aligned), never past the text.
CausalMapRows rows_of(const at::Tensor& map, int64_t height, int64_t window, int64_t spare, int* blocks = nullptr) {
  return [=](const MapRowsVisitor& each) {
    const int64_t n = map.size(0);
    for (int64_t first = 0; first < n; first += height) {
      const int64_t count = std::min(height, n - first);
      const int64_t from = std::max<int64_t>(0, (window > 0 ? first - window + 1 : 0) - spare),
                    to = std::min(n, first + count + spare);
      if (blocks) ++*blocks;
      if (!each(
              {{first, count}, {from, to - from}, map.narrow(0, first, count).narrow(1, from, to - from).contiguous()}))
        return;
    }
  };
}

TextFacts facts_of(int64_t n) {
  std::vector<int32_t> ids;
  std::vector<int> sentence;
  std::vector<bool> takes;
  for (int64_t i = 0; i < n; ++i) {
    ids.push_back(static_cast<int32_t>(i % 17));  // repeats
    sentence.push_back(static_cast<int>(i / 10));
    takes.push_back(i != 0 && i != 77 && i != n - 1);
  }
  return text_facts(ids, sentence, takes);
}

HeadHighSimilarity of_whole(const at::Tensor& map, const TextFacts& f, double tau) {
  return high_similarity(symmetric_pair_map(map).unsqueeze(0), f, tau).front();
}

void expect_same(const HeadHighSimilarity& a, const HeadHighSimilarity& b) {
  EXPECT_EQ(a.scale, b.scale);
  EXPECT_EQ(a.mask.bits(), b.mask.bits());
  EXPECT_EQ(a.mask.count(), b.mask.count());
  EXPECT_EQ(a.counts.count, b.counts.count);
  EXPECT_EQ(a.counts.repeats, b.counts.repeats);
  EXPECT_EQ(a.counts.same_sentence, b.counts.same_sentence);
  EXPECT_EQ(a.counts.same_sentence_repeats, b.counts.same_sentence_repeats);
  EXPECT_EQ(a.counts.distance_sum, b.counts.distance_sum);
  EXPECT_EQ(a.counts.distance_histogram, b.counts.distance_histogram);
  EXPECT_EQ(a.counts.degree, b.counts.degree);
}

TEST(CausalMapPairs, AreThoseOfTheSymmetricMatrixOfTheWholeMap) {
  const int64_t n = 300;
  const TextFacts f = facts_of(n);
  for (const int64_t window : {int64_t{0}, int64_t{20}})
    for (const auto& [height, spare] : {std::pair<int64_t, int64_t>{37, 0}, {64, 5}, {n, 0}, {1, 3}}) {
      SCOPED_TRACE("window " + std::to_string(window) + ", blocks of " + std::to_string(height));
      const at::Tensor map = causal_map(n, window, 3);
      const HeadHighSimilarity whole = of_whole(map, f, 0.3);
      ASSERT_GT(whole.counts.repeats, 0);
      ASSERT_GT(whole.counts.same_sentence, 0);
      ASSERT_GT(whole.mask.count(), 100);
      const CausalMapRows rows = rows_of(map, height, window, spare);
      expect_same(causal_map_high_similarity(rows, n, f, 0.3), whole);
      EXPECT_EQ(causal_map_pair_mask(rows, n, f, 0.3, whole.scale).bits(), whole.mask.bits());
      // Values as the whole path lists them: S_hat of the symmetric matrix, in the mask's order.
      const at::Tensor symmetric = symmetric_pair_map(map).contiguous();
      const std::vector<TokenPair> expected = list_pairs(whole.mask, symmetric.data_ptr<float>(), whole.scale);
      std::vector<TokenPair> valued(expected.begin(), expected.begin() + 150);
      for (TokenPair& p : valued) p.value = -1.0f;
      value_causal_map_pairs(rows, whole.scale, valued);
      for (size_t k = 0; k < valued.size(); ++k)
        ASSERT_EQ(valued[k].value, expected[k].value) << valued[k].i << "," << valued[k].j;
    }
}

// The values read the rows up to the last pair's, no further.
TEST(CausalMapPairs, ValuesStopAtTheLastPairsRow) {
  const int64_t n = 300;
  const at::Tensor map = causal_map(n, 0, 5);
  int blocks = 0;
  std::vector<TokenPair> pairs{{3, 40, 0.0f}, {1, 2, 0.0f}};
  value_causal_map_pairs(rows_of(map, 16, 0, 0, &blocks), 0.5f, pairs);
  EXPECT_EQ(blocks, 3);  // rows 0 .. 47
  EXPECT_EQ(pairs[0].value, map[40][3].item<float>() * 0.5f / 0.5f);
  std::vector<TokenPair> past{{3, 400, 0.0f}};
  EXPECT_THROW(value_causal_map_pairs(rows_of(map, 16, 0, 0), 0.5f, past), Error);
}

// Keys a row does not hold weigh 0 in the scale as in the whole matrix: a map of negative weights
// within a band has its largest element 0, and no pairs; nor has a map of zeros.
TEST(CausalMapPairs, KeysNotHeldWeighZeroInTheScale) {
  const int64_t n = 130;
  const TextFacts f = facts_of(n);
  const at::Tensor negative = -causal_map(n, 9, 11) - 0.01f * at::ones({n, n}).tril_().triu_(-8);
  const HeadHighSimilarity whole = of_whole(negative, f, 0.3);
  ASSERT_EQ(whole.scale, 0.0f);
  // Rows one at a time over their band alone: none holds a key of weight 0.
  expect_same(causal_map_high_similarity(rows_of(negative, 1, 9, 0), n, f, 0.3), whole);
  const at::Tensor zeros = at::zeros({n, n});
  expect_same(causal_map_high_similarity(rows_of(zeros, 32, 9, 0), n, f, 0.3), of_whole(zeros, f, 0.3));
}

// A scale so small that tau times it is 0 in float: every pair of participants meets it, those
// of keys not held too, as in the whole matrix.
TEST(CausalMapPairs, AThresholdOfZeroTakesTheKeysNotHeld) {
  const int64_t n = 70;
  const TextFacts f = facts_of(n);
  at::Tensor tiny = at::zeros({n, n});
  tiny[30][29] = 2 * std::numeric_limits<float>::denorm_min();
  const HeadHighSimilarity whole = of_whole(tiny, f, 0.3);
  ASSERT_GT(whole.scale, 0.0f);
  ASSERT_EQ(static_cast<float>(0.3) * whole.scale, 0.0f);
  ASSERT_GT(whole.mask.count(), n * (n - 1) / 2 - 3 * n);
  expect_same(causal_map_high_similarity(rows_of(tiny, 16, 4, 0), n, f, 0.3), whole);
}

TEST(CausalMapPairs, RowsHandedOutWronglyAreRefused) {
  const int64_t n = 100;
  const TextFacts f = facts_of(n);
  const at::Tensor map = causal_map(n, 0, 1);
  const auto handed = [&](RowSpan rows, KeySpan keys, at::Tensor values) -> CausalMapRows {
    return [=](const MapRowsVisitor& each) { each({rows, keys, values}); };
  };
  EXPECT_THROW(causal_map_high_similarity(handed({0, n}, {0, n}, map.to(at::kDouble)), n, f, 0.3), Error);
  EXPECT_THROW(causal_map_high_similarity(handed({10, n}, {0, n}, map), n, f, 0.3), Error);
  EXPECT_THROW(causal_map_high_similarity(handed({0, n}, {0, n - 1}, map), n, f, 0.3), Error);
  EXPECT_THROW(causal_map_high_similarity(handed({0, n}, {0, n}, map.t()), n, f, 0.3), Error);  // not contiguous
  EXPECT_NO_THROW(causal_map_high_similarity(handed({0, n}, {0, n}, map), n, f, 0.3));
}

}  // namespace
}  // namespace attnscope
