// A head's attention map recomputed from the queries and keys the forward kept equals, to the bit,
// the map the forward captured: in every family whose scores need only queries and keys (causal,
// sliding windows, soft-caps, rotary positions, MPNet's relative bias), on each fixture's texts
// alone and in a padded batch's longest text; DeBERTa is refused in one line.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "base/error.h"
#include "model/transformer.h"
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

TEST(RecomputedAttentionOf, DebertaIsRefusedInOneLine) {
  const auto dir = test::golden_dir() / "encoders" / "deberta-v2";
  const auto model = Transformer::load(dir, test::test_device());
  const TextCaptures t = text_captures(model->forward({{1, 5, 6, 2}}, {.lenses = true}), 0, false);
  EXPECT_THROW(model->recompute_attention(t.queries[0], t.keys[0], 0), Error);
}

}  // namespace
}  // namespace attnscope
