// The high-similarity scan made block by block from the head outputs (what a long text's analysis
// runs) gives what the scan of the whole S gives: the same maxima, masks and counts, to the bit,
// on the real MiniLM's head outputs at 128 and 512 tokens, with special tokens taking part or
// left out, and on a head whose similarities are all negative.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "analysis/context_similarity.h"
#include "analysis/high_similarity.h"
#include "base/error.h"
#include "model/transformer.h"
#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

void expect_same(const std::vector<HeadHighSimilarity>& blocks, const std::vector<HeadHighSimilarity>& whole) {
  ASSERT_EQ(blocks.size(), whole.size());
  for (size_t k = 0; k < whole.size(); ++k) {
    const PairCounts &a = blocks[k].counts, &b = whole[k].counts;
    EXPECT_EQ(blocks[k].scale, whole[k].scale) << "head " << k;
    EXPECT_EQ(blocks[k].mask.bits(), whole[k].mask.bits()) << "head " << k;
    EXPECT_EQ(blocks[k].mask.count(), whole[k].mask.count()) << "head " << k;
    EXPECT_EQ(std::vector<int64_t>({a.count, a.repeats, a.same_sentence, a.same_sentence_repeats, a.distance_sum}),
              std::vector<int64_t>({b.count, b.repeats, b.same_sentence, b.same_sentence_repeats, b.distance_sum}))
        << "head " << k;
    EXPECT_EQ(a.distance_histogram, b.distance_histogram) << "head " << k;
    EXPECT_EQ(a.degree, b.degree) << "head " << k;
  }
}

// A text of n tokens of MiniLM's vocabulary with a repeated stretch (so that heads pair tokens),
// its sentences ten tokens long.
TextFacts facts_of(const std::vector<int64_t>& ids, bool specials_take_part) {
  std::vector<int32_t> id32(ids.begin(), ids.end());
  std::vector<int> sentence;
  std::vector<bool> takes;
  for (size_t i = 0; i < ids.size(); ++i) {
    sentence.push_back(static_cast<int>(i / 10));
    takes.push_back(specials_take_part || (ids[i] != 101 && ids[i] != 102));
  }
  return text_facts(id32, sentence, takes);
}

std::vector<int64_t> text_of(int64_t n) {
  std::vector<int64_t> ids{101};
  for (int64_t k = 1; k + 1 < n; ++k) ids.push_back(2000 + (k % 37) * 113 % 5000);
  ids.push_back(102);
  return ids;
}

class HighSimilarityInBlocks : public ::testing::TestWithParam<int64_t> {};

TEST_P(HighSimilarityInBlocks, EqualsTheScanOfTheWholeSimilarity) {
  const auto model = Transformer::load(test::minilm_dir(), test::test_device());
  const std::vector<int64_t> ids = text_of(GetParam());
  const at::Tensor outputs = text_head_outputs(model->forward({ids}), 0).to(at::kCPU, at::kFloat);
  const int64_t L = outputs.size(0), H = outputs.size(1), n = outputs.size(2);
  const at::Tensor heads = outputs.reshape({L * H, n, -1});
  const at::Tensor whole = context_similarity(outputs).similarity.reshape({L * H, n, n});
  for (const bool specials : {true, false}) {
    const TextFacts facts = facts_of(ids, specials);
    const auto expected = high_similarity(whole, facts, 0.3);
    int64_t pairs = 0;
    for (const auto& head : expected) pairs += head.counts.count;
    EXPECT_GT(pairs, 0);
    expect_same(high_similarity_in_blocks(heads, facts, 0.3), expected);
    expect_same(high_similarity_in_blocks(heads, facts, 0.3, {.rows = 7}), expected);  // a short rest joined
    expect_same(high_similarity_in_blocks(heads, facts, 0.3, {.rows = 9, .heads = 5}), expected);  // groups, a rest
    std::vector<double> reported;  // the share of heads scanned, after each group of 5
    high_similarity_in_blocks(heads, facts, 0.3, {.heads = 5, .progress = [&](std::string_view stage, double f) {
                                                    EXPECT_EQ(stage, "pairs");
                                                    reported.push_back(f);
                                                  }});
    const int64_t K = heads.size(0);
    ASSERT_EQ(static_cast<int64_t>(reported.size()), (K + 4) / 5);
    for (size_t g = 0; g < reported.size(); ++g)
      EXPECT_DOUBLE_EQ(reported[g], static_cast<double>(std::min<int64_t>(5 * (g + 1), K)) / K);
    // Each group handed on as its scan ends, in order, as the whole scan finds it.
    int64_t next = 0;
    std::vector<HeadHighSimilarity> handed;
    high_similarity_in_blocks(heads, facts, 0.3,
                              {.heads = 5, .scanned = [&](int64_t first, std::span<const HeadHighSimilarity> group) {
                                 EXPECT_EQ(first, next);
                                 EXPECT_EQ(group.size(), static_cast<size_t>(std::min<int64_t>(5, K - first)));
                                 next = first + static_cast<int64_t>(group.size());
                                 handed.insert(handed.end(), group.begin(), group.end());
                               }});
    EXPECT_EQ(next, K);
    expect_same(handed, expected);
    // Abandoned when asked, before the next group: after two groups asked three times.
    int asked = 0;
    EXPECT_THROW(high_similarity_in_blocks(heads, facts, 0.3, {.heads = 5, .keep_going = [&] { return ++asked <= 2; }}),
                 Cancelled);
    EXPECT_EQ(asked, 3);
  }
}

INSTANTIATE_TEST_SUITE_P(Lengths, HighSimilarityInBlocks, ::testing::Values(128, 512));

TEST(HighSimilarityInBlocksOf, AHeadWithNoPositiveSimilarity) {
  // Two tokens pointing opposite ways, a third orthogonal to both: every S_ij <= 0, no pairs.
  const at::Tensor c = at::tensor({1.0f, 0.0f, -1.0f, 0.0f, 0.0f, 1.0f}).view({1, 3, 2});
  const TextFacts facts = text_facts({5, 6, 7}, {0, 0, 0}, {true, true, true});
  const auto whole = high_similarity(context_similarity(c).similarity, facts, 0.3);
  expect_same(high_similarity_in_blocks(c, facts, 0.3), whole);
  EXPECT_EQ(whole[0].mask.count(), 0);
}

}  // namespace
}  // namespace attnscope
