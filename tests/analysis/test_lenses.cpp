// The lenses of issue 14: norm-based attention (head and layer) and attention rollout, on cases
// worked by hand and against tools/make_lens_golden.py, numpy from the definitions on
// transformers' outputs for the real MiniLM checkpoint.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "analysis/attention_rollout.h"
#include "analysis/norm_based_attention.h"
#include "analysis/text_analysis.h"
#include "figures/text_figures.h"
#include "base/error.h"
#include "support/minilm.h"
#include "support/nested_tensor.h"
#include "support/paths.h"

namespace attnscope {
namespace {

at::Tensor values(std::vector<float> v, at::IntArrayRef shape) { return at::tensor(v).reshape(shape); }

TEST(Lenses, NormBasedHeadMapByHand) {
  // A = [[0.5, 0.5], [1, 0]], ||f(x_0)|| = 2, ||f(x_1)|| = 3: column j times ||f(x_j)||
  const at::Tensor n = norm_based_attention(values({0.5f, 0.5f, 1, 0}, {1, 2, 2}), values({2, 3}, {1, 2}));
  EXPECT_TRUE(at::allclose(n, values({1, 1.5f, 2, 0}, {1, 2, 2})));
  EXPECT_THROW(norm_based_attention(values({0.5f, 0.5f, 1, 0}, {1, 2, 2}), at::Tensor()), Error);
  EXPECT_THROW(norm_based_attention(values({0.5f, 0.5f, 1, 0}, {1, 2, 2}), values({2, 3, 4}, {1, 3})), Error);
}

TEST(Lenses, NormBasedLayerMapByHand) {
  // Two heads, two tokens, vectors in 2-D: f_0(x_0) = (1, 0), f_1(x_0) = (0, 1); f_0(x_1) = f_1(x_1) = (1, 0).
  // A^0 = [[0.5, 0.5], [1, 0]], A^1 = [[0.2, 0.8], [0.6, 0.4]]:
  //   N_00 = |0.5 (1,0) + 0.2 (0,1)| = sqrt(0.29), N_01 = |0.5 (1,0) + 0.8 (1,0)| = 1.3,
  //   N_10 = |1 (1,0) + 0.6 (0,1)| = sqrt(1.36),   N_11 = |0 + 0.4 (1,0)| = 0.4
  const at::Tensor attention = values({0.5f, 0.5f, 1, 0, 0.2f, 0.8f, 0.6f, 0.4f}, {1, 2, 2, 2});
  const at::Tensor gram = values({1, 0, 0, 1, 1, 1, 1, 1}, {1, 2, 2, 2});  // [L, j, h, h']
  const at::Tensor n = layer_norm_based_attention(attention, gram);
  EXPECT_TRUE(at::allclose(n, values({std::sqrt(0.29f), 1.3f, std::sqrt(1.36f), 0.4f}, {1, 2, 2}), 1e-6, 1e-6)) << n;
}

// A decoder's layer map (LayerMapShape::causal): the columns after each row's own are not computed
// and are 0, the others keep the bits of a map whose every column is computed; so do a block of
// its rows. 37 keys: two blocks of 16 columns and a tail; a local layer's window of 5 too.
TEST(Lenses, NormBasedLayerMapOfACausalMapSkipsTheKeysNoRowSees) {
  at::manual_seed(3);
  const int64_t H = 3, n = 37;
  const at::Tensor vectors = at::randn({1, n, H, 8});
  const at::Tensor gram = at::matmul(vectors, vectors.transpose(-1, -2)).contiguous();  // [1, n, H, H]
  for (const int64_t window : {n, int64_t{5}}) {
    SCOPED_TRACE(window);
    const at::Tensor i = at::arange(n).unsqueeze(1), j = at::arange(n).unsqueeze(0);
    const at::Tensor seen = (j <= i).logical_and(j > i - window);
    const at::Tensor causal = at::softmax(at::randn({1, H, n, n}).masked_fill(seen.logical_not(), -INFINITY), -1);
    const at::Tensor skipped = layer_norm_based_attention(causal, gram, {.causal = true})[0];
    const at::Tensor whole = layer_norm_based_attention(causal, gram)[0];
    EXPECT_TRUE(at::equal(skipped, whole));
    EXPECT_TRUE(at::equal(skipped.masked_select(j > i), at::zeros({n * (n - 1) / 2})));
    const at::Tensor block = causal.narrow(2, 10, 20).contiguous();
    EXPECT_TRUE(at::equal(layer_norm_based_attention(block, gram, {.causal = true, .first_row = 10})[0],
                          whole.narrow(0, 10, 20)));
    // And the formula itself: N_ij = |sum_h A^h_ij f_h(x_j)|.
    const at::Tensor f = vectors[0];  // [j, h, D]
    const at::Tensor expected = (causal[0].permute({1, 2, 0}).unsqueeze(-1) * f.unsqueeze(0)).sum(2).norm(2, -1);
    EXPECT_TRUE(at::allclose(skipped, expected, 1e-4, 1e-5));
  }
}

TEST(Lenses, RolloutByHand) {
  // M_0 = [[0.5, 0.5], [0, 1]] -> R_0 = [[0.75, 0.25], [0, 1]]; M_1 = [[1, 0], [0.5, 0.5]] -> Ahat_1 = [[1, 0], [0.25,
  // 0.75]] R_1 = Ahat_1 R_0 = [[0.75, 0.25], [0.1875, 0.8125]]
  const at::Tensor r = attention_rollout(values({0.5f, 0.5f, 0, 1, 1, 0, 0.5f, 0.5f}, {2, 2, 2}));
  EXPECT_TRUE(at::allclose(r, values({0.75f, 0.25f, 0, 1, 0.75f, 0.25f, 0.1875f, 0.8125f}, {2, 2, 2})));
  EXPECT_THROW(attention_rollout(at::ones({2, 2, 3})), Error);
}

// R_last made a block of rows at a time from rows of the layer maps (a long text's, made again):
// by hand on the two-token case above, and R_l of random maps whose 13 rows cut into blocks of 4
// and a longer last one.
TEST(Lenses, RolloutInBlocksOfRows) {
  const at::Tensor small = values({0.5f, 0.5f, 0, 1, 1, 0, 0.5f, 0.5f}, {2, 2, 2});
  const auto rows_of = [](const at::Tensor& maps) {
    return [maps](int64_t layer, RowSpan rows) {
      return LayerMapBlock{maps[layer].narrow(0, rows.first, rows.size(maps.size(1))), {0, maps.size(2)}};
    };
  };
  EXPECT_TRUE(
      at::allclose(rollout_in_blocks(rows_of(small), 1, 2, 4), values({0.75f, 0.25f, 0.1875f, 0.8125f}, {2, 2})));
  at::manual_seed(7);
  const at::Tensor maps = at::softmax(at::randn({3, 13, 13}), -1);
  const at::Tensor whole = attention_rollout(maps);
  for (const int64_t last : {0, 2})
    EXPECT_TRUE(at::equal(rollout_in_blocks(rows_of(maps), last, 13, 4), whole[last])) << last;
  EXPECT_THROW(rollout_in_blocks(rows_of(maps), -1, 13, 4), Error);
  // Every R_l on its way to the last, handed out as it is made.
  std::vector<int64_t> seen;
  rollout_in_blocks(rows_of(maps), 2, 13, 4, [&](int64_t l, const at::Tensor& r) {
    seen.push_back(l);
    EXPECT_TRUE(at::equal(r, whole[l])) << l;
  });
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2}));
}

// Maps whose rows see some keys alone, as a decoder's (causal, a window of 30 or none) or an
// encoder's local layer's (a band of 20 either side): each group of 64 rows is normalised over and
// multiplies the part of R its rows read (the rows of R it holds a nonzero for, the columns they
// may hold one in), the same bits whether the rows come whole or in blocks (blocks of 37 rows are
// taken as 64, of 128 as they are), over every key or over the keys the block's rows see (as a
// long text's blocks come), and within rounding of the sums and products over every column. Texts
// whose last group holds 2 rows (fewer than MKL's kernels for blocks take) and 11, and one long
// enough that MKL sums a product's columns in more than one panel (where a group's columns taken
// from another first column would sum in another order).
TEST(Lenses, RolloutOfMapsThatSeeSomeKeysAlone) {
  for (const int64_t n : {194, 203, 1090})
    for (const auto& [causal, window] : {std::pair<bool, int64_t>{true, -1}, {true, 30}, {false, 20}}) {
      const at::Tensor at = at::arange(n);
      const at::Tensor distance = at.unsqueeze(1) - at.unsqueeze(0);  // query minus key
      at::Tensor left_out = causal ? distance < 0 : at::zeros({n, n}, at::kBool);
      if (window >= 0) left_out = left_out.logical_or(distance.abs() > window);
      at::manual_seed(n);
      const at::Tensor maps = at::softmax(at::randn({3, n, n}).masked_fill(left_out, -1e30), -1);
      const at::Tensor whole = attention_rollout(maps);
      const auto rows_of = [&maps](int64_t layer, RowSpan rows) {
        return LayerMapBlock{maps[layer].narrow(0, rows.first, rows.size(maps.size(1))), {0, maps.size(2)}};
      };
      // Keys from the first row's band to the last row's (causal: to the last row itself).
      // (A local, not the binding: a lambda may not capture a structured binding before clang 16.)
      const int64_t reach = window < 0 ? n : window, reach_after = causal ? 0 : reach;
      const auto seen_of = [&](int64_t layer, RowSpan rows) {
        const int64_t first = std::max<int64_t>(0, rows.first - reach);
        const int64_t end = std::min(n, rows.first + rows.count + reach_after);
        return LayerMapBlock{maps[layer].narrow(0, rows.first, rows.count).narrow(1, first, end - first),
                             {first, end - first}};
      };
      const std::string what =
          std::to_string(n) + " tokens, " + (causal ? "causal" : "encoder") + ", window " + std::to_string(window);
      for (const int64_t block_rows : {37, 128}) {
        EXPECT_TRUE(at::equal(rollout_in_blocks(rows_of, 2, n, block_rows), whole[2]))
            << what << ", blocks of " << block_rows;
        EXPECT_TRUE(at::equal(rollout_in_blocks(seen_of, 2, n, block_rows), whole[2]))
            << what << ", blocks of " << block_rows << " over the keys they see";
      }
      // R_2 = Ahat_2 Ahat_1 Ahat_0 by products over every column
      const at::Tensor eye = at::eye(n);
      const auto ahat = [&](int64_t l) { return (maps[l] + eye) / (maps[l] + eye).sum(-1, true); };
      EXPECT_TRUE(at::allclose(whole[2], at::mm(ahat(2), at::mm(ahat(1), ahat(0))), 1e-5, 1e-7)) << what;
      // A decoder's R_l row i draws on tokens 0 .. i alone, exactly (no group's product reaches past its last row).
      if (causal)
        for (int64_t l = 0; l < 3; ++l) EXPECT_EQ(whole[l].triu(1).count_nonzero().item<int64_t>(), 0) << what;
    }
}

// Rows handed out over keys that leave out their own (every row reads the first token alone, held
// over that key): the rollout widens them to the rows' own keys, where the residual adds I.
TEST(Lenses, RolloutOfRowsHeldWithoutTheirOwnKeys) {
  const int64_t n = 150;
  const at::Tensor maps = at::zeros({2, n, n});
  maps.select(2, 0).fill_(1.0f);
  const at::Tensor whole = attention_rollout(maps);
  const auto first_key = [&maps](int64_t layer, RowSpan rows) {
    return LayerMapBlock{maps[layer].narrow(0, rows.first, rows.count).narrow(1, 0, 1), {0, 1}};
  };
  EXPECT_TRUE(at::equal(rollout_in_blocks(first_key, 1, n, 64), whole[1]));
  EXPECT_FLOAT_EQ(whole[0][100][0].item<float>(), 0.5f);  // (M + I) / 2: half on the first token, half on itself
  EXPECT_FLOAT_EQ(whole[0][100][100].item<float>(), 0.5f);
}

// Two n x n floats are held; past 4 GB (about 22,000 tokens) the rollout is refused in one line
// that says how much it would take.
TEST(Lenses, ARolloutTooLargeIsRefusedWithItsSize) {
  EXPECT_DOUBLE_EQ(rollout_in_blocks_bytes(1000), 8e6);
  EXPECT_NO_THROW(require_rollout_fits(22000));
  try {
    require_rollout_fits(32768);
    ADD_FAILURE() << "32,768 tokens: 8.6 GB";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("32768 tokens"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("GB"), std::string::npos) << e.what();
  }
}

TEST(Lenses, MatchTheReferenceOnMiniLM) {
  for (const auto& c : test::golden("minilm_lenses.json")["cases"]) {
    const TextRun run = test::minilm_checkpoint().run(c["text"].get<std::string>(), 128, {.lenses = true});
    ASSERT_EQ(run.encoding.ids(), c["ids"].get<std::vector<int64_t>>());
    const TextCaptures& t = run.captures;
    ASSERT_TRUE(t.value_norms.defined() && t.value_gram.defined());
    const at::Tensor norms = test::nested_tensor(c["value_norms"]), layer = test::nested_tensor(c["layer_norm"]);
    const at::Tensor rollout = test::nested_tensor(c["rollout"]);
    EXPECT_LT((t.value_norms.to(at::kDouble) - norms).abs().max().item<double>(),
              1e-4 * std::max(1.0, norms.abs().max().item<double>()));
    const at::Tensor ours = layer_norm_based_attention(t.attention, t.value_gram).to(at::kDouble);
    EXPECT_LT((ours - layer).abs().max().item<double>(), 1e-4 * std::max(1.0, layer.abs().max().item<double>()));
    const at::Tensor r = attention_rollout(t.attention.mean(1)).to(at::kDouble);
    EXPECT_LT((r - rollout).abs().max().item<double>(), 1e-5);
    EXPECT_TRUE(at::allclose(r.sum(-1), at::ones_like(r.sum(-1)), 1e-5, 1e-6)) << "every row of every R_l sums to 1";
  }
}

// The captured queries and keys make the captured attention: softmax_j(q_i . k_j / sqrt(d)) = A_ij.
TEST(Lenses, QueriesAndKeysMakeTheAttention) {
  const TextRun run = test::minilm_checkpoint().run("The keeper lit the lamp. The lamp shone.", 128, {.lenses = true});
  const TextCaptures& t = run.captures;
  ASSERT_TRUE(t.queries.defined() && t.keys.defined());
  const at::Tensor scores =
      at::matmul(t.queries, t.keys.transpose(-1, -2)) / std::sqrt(static_cast<double>(t.head_dim));
  EXPECT_LT((at::softmax(scores, -1) - t.attention).abs().max().item<double>(), 1e-5);
}

TEST(Lenses, NotCapturedUnlessAsked) {
  const TextRun plain = test::minilm_checkpoint().run("The keeper lit the lamp.", 128);
  EXPECT_FALSE(plain.captures.value_norms.defined());
  EXPECT_THROW(layer_norm_based_attention(plain.captures.attention, plain.captures.value_gram), Error);
}

}  // namespace
}  // namespace attnscope

namespace attnscope {
namespace {

// Separators from a lens: uniform attention makes every column a separator; weighted by the size
// of what each token gives (norms 1, 1, 10), only the third column reaches tau_sep = 0.5.
TEST(Lenses, SeparatorsFromTheNormBasedMaps) {
  TextCaptures c;
  c.num_layers = c.num_heads = 1;
  c.length = 3;
  c.attention = at::full({1, 1, 3, 3}, 1.0f / 3);
  c.head_outputs = at::randn({1, 1, 3, 2});
  c.value_norms = at::tensor({1.0f, 1.0f, 10.0f}).reshape({1, 1, 3});
  EXPECT_TRUE(at::allclose(separator_columns(c, SeparatorInput::Attention), at::ones({1, 1, 3})));
  EXPECT_TRUE(
      at::allclose(separator_columns(c, SeparatorInput::Norm), at::tensor({1.0f, 1.0f, 10.0f}).reshape({1, 1, 3})));
  const Encoding e{{Token{1, "a", 0, 1}, Token{2, "b", 2, 3}, Token{3, "c", 4, 5}}};
  AnalysisSettings s;
  EXPECT_EQ(analyze_text(e, c, s).head(0, 0).separators.positions, (std::vector<int>{0, 1, 2}));
  s.separators_from = SeparatorInput::Norm;
  EXPECT_EQ(analyze_text(e, c, s).head(0, 0).separators.positions, (std::vector<int>{2}));
  c.value_norms = at::Tensor();
  EXPECT_THROW(analyze_text(e, c, s), Error);
}

TEST(Lenses, SeparatorsFromRolloutAreTheLayersForEveryHead) {
  const TextRun run = test::minilm_checkpoint().run("The keeper lit the lamp. The lamp shone.", 128);
  AnalysisSettings s;
  s.separators_from = SeparatorInput::Rollout;
  const TextAnalysis a = analyze_text(run.encoding, run.captures, s);
  for (int64_t l = 0; l < a.num_layers; ++l)
    for (int64_t h = 1; h < a.num_heads; ++h)
      EXPECT_EQ(a.head(l, h).separators.positions, a.head(l, 0).separators.positions);
}

}  // namespace
}  // namespace attnscope

namespace attnscope {
namespace {

// The rollout option: through the norm-based layer maps instead of the mean attention.
TEST(Lenses, RolloutThroughTheNormBasedMaps) {
  const TextRun run = test::minilm_checkpoint().run("The keeper lit the lamp. The lamp shone.", 128, {.lenses = true});
  const TextAnalysis a = analyze_text(run.encoding, run.captures, {});
  const AnalyzedTextView view{run.encoding, run.captures, a};
  const at::Tensor of_norm =
      attention_rollout(layer_norm_based_attention(run.captures.attention, run.captures.value_gram));
  const std::vector<float> shown = head_matrix(view, 3, 0, MatrixKind::Rollout, true);
  EXPECT_TRUE(at::allclose(at::tensor(shown).reshape(of_norm[3].sizes()), of_norm[3], 1e-5, 1e-6));
  const std::vector<float> plain = head_matrix(view, 3, 0, MatrixKind::Rollout);
  EXPECT_FALSE(at::allclose(at::tensor(plain).reshape(of_norm[3].sizes()), of_norm[3], 1e-3, 1e-3))
      << "the option changes the map";
}

}  // namespace
}  // namespace attnscope
