// Pairs from another matrix than S (AnalysisSettings::pairs_from, docs/lenses.md): the high elements
// of cosine, or of attention, the norm-based map or rollout made symmetric, (M + M^T) / 2, worked by
// hand on one head of three tokens; the statistics follow the pairs, the strongest listed first
// (strongest_pairs.h, ties in the text's order); what is missing is an error.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "analysis/strongest_pairs.h"
#include "analysis/text_analysis.h"
#include "base/error.h"
#include "support/minilm.h"
#include "support/strongest_pairs_check.h"

namespace attnscope {
namespace {

class PairSources : public ::testing::Test {
 protected:
  PairSources() {
    c_.num_layers = c_.num_heads = 1;
    c_.length = 3;
    // A: tokens 0 and 1 attend to each other (0.7, 0.6); token 2 to itself.
    c_.attention = at::tensor({0.2f, 0.7f, 0.1f, 0.6f, 0.3f, 0.1f, 0.1f, 0.1f, 0.8f}).reshape({1, 1, 3, 3});
    // C: tokens 0 and 2 point the same way (S_02 = 2, cosine 1), token 1 at right angles to both.
    c_.head_outputs = at::tensor({2.0f, 0.0f, 0.0f, 1.0f, 1.0f, 0.0f}).reshape({1, 1, 3, 2});
    c_.value_norms = at::tensor({1.0f, 1.0f, 10.0f}).reshape({1, 1, 3});
  }
  std::vector<TokenPair> pairs(PairInput from, double tau = 0.3) {
    AnalysisSettings s;
    s.pairs_from = from;
    s.tau = tau;
    analysis_ = analyze_text(e_, c_, s);
    return head_pairs(analysis_, 0, 0);
  }
  static std::vector<std::pair<int, int>> positions(const std::vector<TokenPair>& pairs) {
    std::vector<std::pair<int, int>> out;
    for (const TokenPair& p : pairs) out.emplace_back(p.i, p.j);
    return out;
  }
  TextCaptures c_;
  Encoding e_{{Token{1, "a", 0, 1}, Token{2, "b", 2, 3}, Token{3, "c", 4, 5}}};
  TextAnalysis analysis_;
};

using Positions = std::vector<std::pair<int, int>>;

TEST_F(PairSources, SimilarityIsTheDefaultAndKeepsNoOtherMatrix) {
  EXPECT_EQ(positions(pairs(PairInput::Similarity)), (Positions{{0, 2}}));
  EXPECT_FLOAT_EQ(analysis_.head(0, 0).scale, 2.0f);
  EXPECT_FALSE(analysis_.pair_matrix.defined());
  EXPECT_EQ(AnalysisSettings{}.pairs_from, PairInput::Similarity);
}

TEST_F(PairSources, CosineByHand) {
  const auto p = pairs(PairInput::Cosine);
  EXPECT_EQ(positions(p), (Positions{{0, 2}}));
  EXPECT_FLOAT_EQ(analysis_.head(0, 0).scale, 1.0f);
  EXPECT_FLOAT_EQ(p[0].value, 1.0f);
}

// (A + A^T) / 2 off the diagonal: 0.65 (0, 1), 0.1 (0, 2), 0.1 (1, 2); normalised 1, 0.154, 0.154.
TEST_F(PairSources, AttentionByHand) {
  auto p = pairs(PairInput::Attention);
  EXPECT_EQ(positions(p), (Positions{{0, 1}}));
  EXPECT_NEAR(analysis_.head(0, 0).scale, 0.65f, 1e-6);
  EXPECT_EQ(analysis_.head(0, 0).stats.count, 1);
  p = pairs(PairInput::Attention, 0.15);
  EXPECT_EQ(positions(p), (Positions{{0, 1}, {0, 2}, {1, 2}}));
  EXPECT_NEAR(p[1].value, 0.1f / 0.65f, 1e-6);
  EXPECT_EQ(analysis_.head(0, 0).stats.count, 3);
  // The strongest first; (0, 2) and (1, 2) tie, the earlier in the text first.
  EXPECT_EQ(positions(strongest_head_pairs(analysis_, 0, 0, 2)), (Positions{{0, 1}, {0, 2}}));
  test::expect_strongest_pairs_are_the_sorted_list(analysis_, 0, 0);
}

// N = A_ij ||f(x_j)|| with norms 1, 1, 10: (N + N^T) / 2 is 0.65 (0, 1), 0.55 (0, 2), 0.55 (1, 2).
TEST_F(PairSources, NormByHand) {
  const auto p = pairs(PairInput::Norm);
  EXPECT_EQ(positions(p), (Positions{{0, 1}, {0, 2}, {1, 2}}));
  EXPECT_NEAR(p[2].value, 0.55f / 0.65f, 1e-6);
  c_.value_norms = at::Tensor();
  EXPECT_THROW(pairs(PairInput::Norm), Error) << "without the lenses' captures";
}

// One layer: Ahat = normalise_rows(A + I) = [[0.6, 0.35, 0.05], [0.3, 0.65, 0.05], [0.05, 0.05, 0.9]],
// so (Ahat + Ahat^T) / 2 is 0.325 (0, 1), 0.05 (0, 2), 0.05 (1, 2).
TEST_F(PairSources, RolloutByHand) {
  const auto p = pairs(PairInput::Rollout);
  EXPECT_EQ(positions(p), (Positions{{0, 1}}));
  EXPECT_NEAR(analysis_.head(0, 0).scale, 0.325f, 1e-6);
}

TEST_F(PairSources, MapsAreNeededWhenNotTakenFromTheCaptures) {
  AnalysisSettings s;
  s.pairs_from = PairInput::Attention;
  const at::Tensor columns = c_.attention.sum(-2);
  EXPECT_THROW(analyze_text(e_, c_.head_outputs, columns, s), Error);
  EXPECT_NO_THROW(analyze_text(e_, c_.head_outputs, columns, s, {}, pair_maps(c_, s.pairs_from)));
}

// Made symmetric in place, tile by tile (a long text's map, pipeline/long_text_lens_pairs.h): the
// bits symmetric_pair_map gives, with tiles that do not divide n and with one tile.
TEST(SymmetricPairMap, InPlaceTileByTileGivesTheSameBits) {
  at::manual_seed(3);
  const at::Tensor map = at::rand({700, 700}).pow_(4);  // attention-like: many small values, some large
  const at::Tensor whole = symmetric_pair_map(map);
  EXPECT_TRUE(at::equal(whole, whole.t()));
  EXPECT_EQ(whole.diagonal().abs().max().item<float>(), 0.0f);
  for (const int64_t tile : {int64_t{64}, int64_t{300}, int64_t{512}, int64_t{700}, int64_t{1000}}) {
    at::Tensor in_place = map.clone();
    symmetric_pair_map_in_place(in_place, tile);
    EXPECT_TRUE(at::equal(in_place, whole)) << "tiles of " << tile;
  }
  at::Tensor not_square = at::rand({3, 4});
  EXPECT_THROW(symmetric_pair_map_in_place(not_square), Error);
}

TEST(PairSourcesOnMiniLM, RolloutPairsAreTheLayersForEveryHeadAndAttentionPairsDifferFromS) {
  const TextRun run = test::minilm_checkpoint().run("The keeper lit the lamp. The lamp shone over the sea.", 128);
  AnalysisSettings s;
  s.pairs_from = PairInput::Rollout;
  const TextAnalysis rollout = analyze_text(run.encoding, run.captures, s);
  for (int64_t l = 0; l < rollout.num_layers; ++l)
    for (int64_t h = 1; h < rollout.num_heads; ++h)
      EXPECT_EQ(rollout.head(l, h).pairs.bits(), rollout.head(l, 0).pairs.bits());
  s.pairs_from = PairInput::Attention;
  const TextAnalysis attention = analyze_text(run.encoding, run.captures, s);
  const TextAnalysis similarity = analyze_text(run.encoding, run.captures, {});
  int differing = 0;
  for (size_t k = 0; k < attention.heads.size(); ++k)
    differing += attention.heads[k].pairs.bits() != similarity.heads[k].pairs.bits();
  EXPECT_GT(differing, 0);
  EXPECT_TRUE(at::allclose(attention.pair_matrix, attention.pair_matrix.transpose(-1, -2)));
}

}  // namespace
}  // namespace attnscope
