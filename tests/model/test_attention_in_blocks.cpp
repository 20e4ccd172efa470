// The forward that keeps queries, keys and column sums instead of maps (KeptAttention::QueriesAndKeys,
// what a long text keeps) makes each layer's attention in blocks of query rows: its head outputs,
// last hidden state, queries and keys equal the whole path's to the bit (on the CPU; within
// rounding on a GPU, expect_bitwise), its column sums equal the
// maps' sums (to rounding: they are summed block by block), and the maps recomputed from what it
// kept, block by block, equal the whole path's maps to the bit (also when made from the configuration
// alone, without the weights); a forward without captures past its limit on whole scores runs the
// same blocks. In every family but DeBERTa, on texts alone and in a padded batch, on sliding-window
// decoders past their window, and on the real MiniLM at 512 tokens. The blocks here are a few rows
// high, the last one often shorter, so that every text crosses many of them.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "base/error.h"
#include "model/attention_rows.h"
#include "model/transformer.h"
#include "support/nested_tensor.h"
#include "support/model_texts.h"
#include "support/modified_checkpoint.h"
#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

// To the bit on the CPU. Off it a block of rows' head outputs are one product over its keys, the
// whole path's one over every key (context_in_blocks.h), and the library picks kernels by shape:
// within rounding there, and so are the later layers' maps.
void expect_bitwise(const Transformer& model, const at::Tensor& a, const at::Tensor& b, const std::string& what) {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  if (model.device().device.is_cpu())
    EXPECT_TRUE(at::equal(a, b)) << what << ": largest difference " << (a - b).abs().max().item<double>();
  else
    EXPECT_TRUE(at::allclose(a.to(at::kCPU, at::kFloat), b.to(at::kCPU, at::kFloat), 1e-4, 1e-5)) << what;
}

// Both paths on one batch; `rows`: the blocks' height.
void expect_same_forward(const Transformer& model, const std::vector<std::vector<int64_t>>& ids, int64_t rows) {
  const BatchCaptures whole = model.forward(ids, {.lenses = true});
  const BatchCaptures blocks = model.forward(ids, {.kept = KeptAttention::QueriesAndKeys, .block_rows = rows});
  EXPECT_TRUE(blocks.attention.empty());
  EXPECT_FALSE(blocks.all_attention.defined());
  expect_bitwise(model, blocks.all_head_outputs, whole.all_head_outputs, "head outputs");
  expect_bitwise(model, blocks.all_queries, whole.all_queries, "queries");
  expect_bitwise(model, blocks.all_keys, whole.all_keys, "keys");
  EXPECT_EQ(blocks.all_keys.size(2), model.config().kv_heads()) << "a group's keys kept once";
  ASSERT_EQ(blocks.hidden_states.size(), 1u) << "a long text keeps its last state alone";
  expect_bitwise(model, blocks.hidden_states.back(), whole.hidden_states.back(), "last hidden state");
  expect_bitwise(model, blocks.last_states, whole.last_states, "last tokens' states");
  EXPECT_TRUE(at::allclose(column_attention(blocks), column_attention(whole), 1e-5, 1e-6)) << "column attention";
  for (size_t b = 0; b < ids.size(); ++b) {
    const TextCaptures t = text_captures(blocks, b, false);
    const at::Tensor maps = text_attention(whole, b);
    const int64_t n = t.length;
    EXPECT_FALSE(t.attention.defined());
    EXPECT_TRUE(at::allclose(t.column_sums, maps.to(at::kFloat).sum(-2), 1e-5, 1e-6)) << "column sums of text " << b;
    // Made again by the model, and without its weights from its configuration alone (what a result
    // file's maps are made by), but where the scores need a weight (MPNet's bias by distance).
    const AttentionScores from_config(model.config(), model.device());
    const bool without_weights = model.config().relative_buckets == 0;
    for (int64_t l = 0; l < t.num_layers; ++l) {
      std::vector<at::Tensor> parts, parts_without_weights;
      const auto inputs = from_config.recompute_inputs(t.queries[l], t.keys[l], l);
      for (int64_t first = 0; first < n; first += rows) {
        const RowSpan span{first, std::min(rows, n - first)};
        parts.push_back(model.recompute_attention(t.queries[l], t.keys[l], l, span));
        if (without_weights) parts_without_weights.push_back(from_config.recompute(inputs, span));
      }
      const std::string where = "text " + std::to_string(b) + ", layer " + std::to_string(l);
      expect_bitwise(model, at::cat(parts, 1), maps[l], where);
      // One head at a time, as a view asks: a grouped head reads its group's keys, kept once.
      const AttentionRows head_rows = recomputed_attention_rows(model, t);
      for (int64_t h = 0; h < t.num_heads; ++h)
        expect_bitwise(model, head_rows(l, h, {3, n - 3})[0], maps[l][h].narrow(0, 3, n - 3).to(at::kCPU, at::kFloat),
                       where + ", head " + std::to_string(h));
      if (without_weights)
        expect_bitwise(model, at::cat(parts_without_weights, 1), maps[l], where + ", from the configuration");
    }
  }
}

class AttentionInBlocks : public ::testing::TestWithParam<std::string> {};

TEST_P(AttentionInBlocks, GivesTheWholePathsOutputsAndMapsToTheBit) {
  const auto model = Transformer::load(test::golden_dir() / GetParam(), test::test_device());
  // Texts of 64 and 41 tokens of the model's vocabulary: long enough that every product of a block,
  // as of the whole, goes to MKL (torch multiplies matrices of fewer than 400 multiply-adds in a loop
  // of its own, which sums in another order; a real long text's blocks are far larger).
  const std::vector<int64_t> longer = test::spread_token_ids(*model, 64, 11);
  const std::vector<int64_t> shorter = test::spread_token_ids(*model, 41, 5);
  expect_same_forward(*model, {longer}, 7);
  expect_same_forward(*model, {longer, shorter}, 9);  // padded: pads are no query rows
}

// A forward without captures past its limit on whole scores (0 here) runs the same blocks: the same
// last hidden states to the bit as the forward keeping queries and keys, padded batch included.
TEST_P(AttentionInBlocks, AForwardWithoutCapturesGoesInBlocksPastItsLimit) {
  const auto model = Transformer::load(test::golden_dir() / GetParam(), test::test_device());
  const std::vector<std::vector<int64_t>> ids = {test::spread_token_ids(*model, 64, 11),
                                                 test::spread_token_ids(*model, 41, 5)};
  const BatchCaptures plain = model->forward(ids, {.capture = false, .most_whole_score_bytes = 0, .block_rows = 9});
  const BatchCaptures blocks = model->forward(ids, {.kept = KeptAttention::QueriesAndKeys, .block_rows = 9});
  EXPECT_FALSE(plain.all_head_outputs.defined());
  ASSERT_EQ(plain.hidden_states.size(), 1u) << "in blocks, the last state alone";
  expect_bitwise(*model, plain.hidden_states.back(), blocks.hidden_states.back(), "last hidden state");
  expect_bitwise(*model, plain.last_states, blocks.last_states, "last tokens' states");
  const BatchCaptures whole = model->forward(ids, {.capture = false});  // the fused attention: other bits
  EXPECT_TRUE(at::allclose(plain.hidden_states.back(), whole.hidden_states.back(), 1e-4, 1e-5));
}

// The feed-forward block a few rows at a time, as a long text's goes past 32 MB of activations
// (Gemma 3's at some 2,000 tokens): every later layer's head outputs and the last states, to the
// bit, with and without captures. Blocks of 8 and 16 rows: with these checkpoints' 40 inner
// activations a row, a block of 7 leaves some of them outside the activation's vector lanes,
// computed by its scalar loop, whose tanh (ALBERT's and XLM-R's gelu_new) differs in the last bit
// (measured; a real model's rows are multiples of 16 wide).
TEST_P(AttentionInBlocks, TheFeedForwardBlockInBlocksOfRowsGivesTheSameBits) {
  const auto model = Transformer::load(test::golden_dir() / GetParam(), test::test_device());
  const std::vector<std::vector<int64_t>> ids = {test::spread_token_ids(*model, 64, 11),
                                                 test::spread_token_ids(*model, 41, 5)};
  const BatchCaptures whole = model->forward(ids);
  const BatchCaptures blocks = model->forward(ids, {.feed_forward_rows = 8});
  expect_bitwise(*model, blocks.all_head_outputs, whole.all_head_outputs, "head outputs");
  expect_bitwise(*model, blocks.hidden_states.back(), whole.hidden_states.back(), "last hidden state");
  const BatchCaptures plain = model->forward(ids, {.capture = false, .feed_forward_rows = 16});
  expect_bitwise(*model, plain.hidden_states.back(), model->forward(ids, {.capture = false}).hidden_states.back(),
                 "last hidden state without captures");
}

INSTANTIATE_TEST_SUITE_P(Families, AttentionInBlocks,
                         ::testing::Values("decoders/llama", "decoders/mistral", "decoders/qwen2_sliding",
                                           "decoders/qwen3", "decoders/gemma2", "decoders/gemma3", "decoders/gpt2",
                                           "decoders/gpt_neox", "encoders/modernbert", "encoders/mpnet",
                                           "encoders/roberta", "encoders/albert", "encoders/electra",
                                           "encoders/xlm-roberta"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '/', '_');
                           return test::test_name(name);
                         });

// A sliding-window layer's text past a block of head outputs (context_in_blocks.h: 64 rows), where
// a block's product leaves out the keys before its window (and an encoder's those after it) and
// its scores the keys outside the band: the checkpoints copied with 300 positions (their rotary
// positions need no table); blocks of rows that end inside a block of products and blocks that
// do not.
TEST(AttentionInBlocksOf, SlidingWindowLayersPastTheirWindow) {
  for (const std::string family : {"decoders/gemma3", "decoders/mistral", "encoders/modernbert"}) {
    SCOPED_TRACE(family);
    const test::TempDir copy;
    test::write_longer_checkpoint(test::golden_dir() / family, copy.path(), 300);
    const auto model = Transformer::load(copy.path(), test::test_device());
    ASSERT_TRUE(model->config().has_local_layers());
    for (const int64_t rows : {37, 128}) expect_same_forward(*model, {test::spread_token_ids(*model, 230, 11)}, rows);
  }
}

// Products shared among threads, blocks of the default height and of an odd one (MiniLM, 512 positions).
TEST(AttentionInBlocksOf, TheRealMiniLMAtItsFullLength) {
  const auto model = Transformer::load(test::minilm_dir(), test::test_device());
  std::vector<int64_t> ids{101};
  for (int64_t k = 1; k < 511; ++k) ids.push_back(1000 + (k * 7919) % 20000);
  ids.push_back(102);
  expect_same_forward(*model, {ids}, 77);
  const BatchCaptures whole = model->forward({ids});
  const BatchCaptures blocks = model->forward({ids}, {.kept = KeptAttention::QueriesAndKeys});
  expect_bitwise(*model, blocks.all_head_outputs, whole.all_head_outputs, "head outputs, default blocks");
}

TEST(AttentionInBlocksOf, DebertaIsRefusedInOneLine) {
  const auto model = Transformer::load(test::golden_dir() / "encoders" / "deberta-v2", test::test_device());
  EXPECT_THROW(model->forward({{1, 5, 6, 2}}, {.kept = KeptAttention::QueriesAndKeys}), Error);
}

}  // namespace
}  // namespace attnscope
