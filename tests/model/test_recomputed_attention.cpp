// A head's attention map recomputed from the queries and keys the forward kept equals, to the bit,
// the map the forward captured: in every family whose scores need only queries and keys (causal,
// sliding windows, soft-caps, rotary positions, MPNet's relative bias), on each fixture's texts
// alone and in a padded batch's longest text; DeBERTa is refused in one line. Blocks of rows made
// again over the keys they may see alone hold the same values within rounding.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "base/error.h"
#include "model/transformer.h"
#include "support/model_texts.h"
#include "support/nested_tensor.h"
#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

class RecomputedAttention : public ::testing::TestWithParam<std::string> {};

TEST_P(RecomputedAttention, EqualsTheCapturedMapsToTheBit) {
  const auto dir = test::golden_dir() / GetParam();
  const auto model = Transformer::load(dir, test::test_device());
  const nlohmann::json expected = test::read_json(dir / "expected.json");  // held: the loop reads into it
  for (const auto& c : expected["cases"]) {
    const auto ids = c["ids"].get<std::vector<int64_t>>();
    const TextCaptures t = text_captures(model->forward({ids}, {.lenses = true}), 0, false);
    for (int64_t l = 0; l < t.num_layers; ++l) {
      const at::Tensor again = model->recompute_attention(t.queries[l], t.keys[l], l);
      EXPECT_TRUE(at::equal(again, t.attention[l]))
          << "layer " << l << ": largest difference " << (again - t.attention[l]).abs().max().item<double>();
    }
  }
}

// Each block of rows made again over the keys it may see alone (what the head roles read): the
// captured map's values there within rounding, and the map is 0 at every key left out.
TEST_P(RecomputedAttention, VisibleKeysAloneHoldTheMapsValues) {
  const auto dir = test::golden_dir() / GetParam();
  const auto model = Transformer::load(dir, test::test_device());
  const AttentionScores& scores = model->attention_scores();
  const nlohmann::json expected = test::read_json(dir / "expected.json");  // held: the loop reads into it
  for (const auto& c : expected["cases"]) {
    const auto ids = c["ids"].get<std::vector<int64_t>>();
    const auto n = static_cast<int64_t>(ids.size());
    const TextCaptures t = text_captures(model->forward({ids}, {.lenses = true}), 0, true);
    for (int64_t l = 0; l < t.num_layers; ++l) {
      const Transformer::RecomputeInputs inputs = model->recompute_inputs(t.queries[l], t.keys[l], l);
      for (int64_t first = 0; first < n; first += 3) {
        const RowSpan rows{first, std::min<int64_t>(3, n - first)};
        const KeySpan keys = scores.visible_keys(l, n, rows);
        const at::Tensor whole = t.attention[l].narrow(1, rows.first, rows.count);
        const at::Tensor seen = scores.recompute(inputs, rows, keys).to(at::kCPU, at::kFloat);
        const at::Tensor want = whole.narrow(2, keys.first, keys.count);
        ASSERT_EQ(seen.sizes(), want.sizes()) << "layer " << l << ", rows from " << first;
        EXPECT_LE((seen - want).abs().max().item<double>(), 1e-6) << "layer " << l << ", rows from " << first;
        at::Tensor outside = whole.clone();
        outside.narrow(2, keys.first, keys.count).zero_();
        EXPECT_EQ(outside.abs().max().item<double>(), 0.0) << "layer " << l << ": a key left out has attention";
      }
    }
  }
}

// A block's queries scaled apart (a long text's forward: Transformer::attend_in_blocks) give the
// block of maps the rows of every query scaled at once give, to the bit, at any block's start.
TEST_P(RecomputedAttention, ABlocksOwnQueriesGiveItsMapsToTheBit) {
  const auto dir = test::golden_dir() / GetParam();
  const auto model = Transformer::load(dir, test::test_device());
  const AttentionScores& scores = model->attention_scores();
  const nlohmann::json expected = test::read_json(dir / "expected.json");  // held: the loop reads into it
  const auto ids = expected["cases"][0]["ids"].get<std::vector<int64_t>>();
  const auto n = static_cast<int64_t>(ids.size());
  const TextCaptures t = text_captures(model->forward({ids}, {.lenses = true}), 0, false);
  for (int64_t l = 0; l < t.num_layers; ++l) {
    const at::Tensor q_t = t.queries[l].transpose(1, 2).contiguous();  // [H, d, n], as the forward has it
    const Transformer::RecomputeInputs inputs = model->recompute_inputs(t.queries[l], t.keys[l], l);
    const at::Tensor every = scores.scaled_query_rows(q_t);
    const bool local = model->config().is_local_layer(static_cast<size_t>(l));
    for (const int64_t size : {5, 16}) {
      for (int64_t first = 0; first < n; first += size) {
        const RowSpan rows{first, std::min(size, n - first)};
        const at::Tensor own = scores.scaled_query_rows(q_t, rows);
        ASSERT_EQ(own.size(1), rows.count);
        const at::Tensor want = scores.attention_block(every, inputs.keys_t, {}, local, 1, rows).whole();
        const at::Tensor got = scores.attention_block(own, inputs.keys_t, {}, local, 1, rows).whole();
        EXPECT_TRUE(at::equal(got, want)) << "layer " << l << ", " << size << " rows from " << first;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Families, RecomputedAttention,
                         ::testing::Values("decoders/llama", "decoders/mistral", "decoders/qwen2_sliding",
                                           "decoders/qwen3", "decoders/gemma2", "decoders/gemma3", "decoders/gpt2",
                                           "decoders/gpt_neox", "encoders/modernbert", "encoders/mpnet",
                                           "encoders/roberta", "encoders/albert", "encoders/electra"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '/', '_');
                           return test::test_name(name);
                         });

// Long enough that the products are shared among threads (MiniLM, 512 positions).
TEST(RecomputedAttentionOf, TheRealMiniLMAtItsFullLength) {
  const auto model = Transformer::load(test::minilm_dir(), test::test_device());
  std::vector<int64_t> ids{101};
  for (int64_t k = 1; k < 511; ++k) ids.push_back(1000 + (k * 7919) % 20000);
  ids.push_back(102);
  const TextCaptures t = text_captures(model->forward({ids}, {.lenses = true}), 0, false);
  for (int64_t l = 0; l < t.num_layers; ++l)
    EXPECT_TRUE(at::equal(model->recompute_attention(t.queries[l], t.keys[l], l), t.attention[l])) << "layer " << l;
}

// A decoder's maps on the CPU are made in blocks of rows, each over the keys its rows may see
// (Transformer::maps_in_blocks_into); the fixtures' texts fit in one block. Long enough for many
// blocks, and for Gemma 3's sliding window of 512 to leave keys out: every map equals the one
// scoring every key (a head's whole map made again in one piece), to the bit, and so do the maps
// of a continued forward's later rows, made in blocks from a row inside one.
TEST(RecomputedAttentionOf, ARealDecodersMapsMadeInBlocksEqualScoringEveryKey) {
  test::on_real_decoders([](const Transformer& model) {
    const std::vector<int64_t> text = test::spread_token_ids(model, 600, 3);
    std::vector<int64_t> typed = text;
    typed[401] = typed[402];
    const ForwardOptions fresh{.lenses = true, .keep_layer_inputs = true};
    const TextCaptures kept = text_captures(model.forward({text}, fresh), 0, false);
    ForwardOptions continued = fresh;
    continued.prefix = {kept.hidden_states, 401, kept.attention, kept.head_outputs, kept.layer_keys, kept.layer_values};
    ASSERT_EQ(model.tokens_continued(continued.prefix, static_cast<int64_t>(typed.size()), 1), 401);
    for (const auto& [ids, options] : {std::pair{text, fresh}, std::pair{typed, continued}}) {
      const TextCaptures t = text_captures(model.forward({ids}, options), 0, false);
      for (int64_t l = 0; l < t.num_layers; ++l)
        EXPECT_TRUE(at::equal(model.recompute_attention(t.queries[l], t.keys[l], l), t.attention[l]))
            << "layer " << l << (options.prefix.tokens > 0 ? ", continued" : "");
    }
  });
}

TEST(RecomputedAttentionOf, DebertaIsRefusedInOneLine) {
  const auto dir = test::golden_dir() / "encoders" / "deberta-v2";
  const auto model = Transformer::load(dir, test::test_device());
  const TextCaptures t = text_captures(model->forward({{1, 5, 6, 2}}, {.lenses = true}), 0, false);
  EXPECT_THROW(model->recompute_attention(t.queries[0], t.keys[0], 0), Error);
}

}  // namespace
}  // namespace attnscope
