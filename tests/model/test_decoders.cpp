// Every decoder family runs exactly as transformers runs it: tiny random-weight checkpoints saved
// by transformers itself, with its eager attention maps, the head outputs C = A V (each query head
// reading its group's shared V) and the hidden states as the golden fixture
// (tools/make_decoder_golden.py). Each text is run alone, as the explorer runs it (with its
// checks), and all of them as one batch padded at the end.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "model/config.h"
#include "model/next_tokens.h"
#include "model/transformer.h"
#include "support/golden_captures.h"
#include "support/nested_tensor.h"
#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

double gap(const at::Tensor& a, const at::Tensor& b) { return (a - b).abs().max().item<double>(); }

class Decoder : public ::testing::TestWithParam<std::string> {
 protected:
  std::filesystem::path dir() const { return test::golden_dir() / "decoders" / GetParam(); }
};

TEST_P(Decoder, MatchesTransformersAloneAndBatchedWithPadding) {
  const auto model = Transformer::load(dir(), test::test_device());
  EXPECT_TRUE(model->config().causal());
  const nlohmann::json expected = test::read_json(dir() / "expected.json");
  std::vector<std::vector<int64_t>> batch;
  for (const auto& c : expected["cases"]) {
    const auto ids = c["ids"].get<std::vector<int64_t>>();
    batch.push_back(ids);
    const std::string tokens = std::to_string(ids.size()) + " tokens";
    test::expect_golden_case(text_captures(model->forward({ids}), 0, true), c, GetParam() + " alone, " + tokens);
    const BatchCaptures checked =
        model->forward({ids}, {.last_layer = LastLayer::Complete, .keep_going = [] { return true; }});
    test::expect_golden_case(text_captures(checked, 0, true), c, GetParam() + " with checks, " + tokens);
  }
  const BatchCaptures together = model->forward(batch);
  for (size_t b = 0; b < batch.size(); ++b)
    test::expect_golden_case(text_captures(together, b, true), expected["cases"][b],
                             GetParam() + " batched, text " + std::to_string(b));
}

// A causal map: nothing above the diagonal, every row a distribution over the tokens up to its own.
TEST_P(Decoder, AttentionLooksOnlyBackwards) {
  const auto model = Transformer::load(dir(), test::test_device());
  const nlohmann::json expected = test::read_json(dir() / "expected.json");
  const auto ids = expected["cases"][0]["ids"].get<std::vector<int64_t>>();
  const TextCaptures c = text_captures(model->forward({ids}), 0, false);
  const at::Tensor a = c.attention.to(at::kCPU, at::kDouble);
  EXPECT_EQ(a.triu(1).abs().max().item<double>(), 0.0);
  EXPECT_LT((a.sum(-1) - 1).abs().max().item<double>(), 1e-6);
}

// The column attention of a padded batch (what corpus runs read) is each text's alone, means over
// the queries that may see each key (the windows of a sliding layer included).
TEST_P(Decoder, BatchedColumnAttentionIsEachTextsOwn) {
  const auto model = Transformer::load(dir(), test::test_device());
  const nlohmann::json expected = test::read_json(dir() / "expected.json");
  std::vector<std::vector<int64_t>> batch;
  for (const auto& c : expected["cases"]) batch.push_back(c["ids"].get<std::vector<int64_t>>());
  const BatchCaptures together = model->forward(batch);
  ASSERT_TRUE(together.visibility.causal);
  const at::Tensor columns = column_attention(together).to(at::kCPU);
  for (size_t b = 0; b < batch.size(); ++b) {
    const TextCaptures alone = text_captures(model->forward({batch[b]}), 0, true);
    const at::Tensor own = column_means(alone.attention.sum(-2), alone.visibility);
    const auto n = static_cast<int64_t>(batch[b].size());
    EXPECT_LT(gap(columns[static_cast<int64_t>(b)].narrow(-1, 0, n), own), 1e-5) << "text " << b;
  }
}

INSTANTIATE_TEST_SUITE_P(Families, Decoder, ::testing::Values("llama", "mistral", "qwen2", "qwen3", "gemma3"),
                         [](const auto& info) { return test::test_name(info.param); });

// Next tokens come from the final norm's output through the output matrix (this fixture's own
// lm_head; the real decoders' are tied, tests/model/test_gguf_decoders.cpp), as probabilities in
// descending order that sum to at most 1; an encoder has none, nor a forward cut short.
TEST(NextTokens, DecodersOnlyMostLikelyFirst) {
  const auto dir = test::golden_dir() / "decoders" / "llama";
  const auto model = Transformer::load(dir, test::test_device());
  const TextCaptures c = text_captures(model->forward({{1, 5, 9, 14}}), 0, true);
  const std::vector<NextToken> next = next_tokens(*model, c, 5);
  ASSERT_EQ(next.size(), 5u);
  double total = 0;
  for (size_t k = 0; k < next.size(); ++k) {
    total += next[k].probability;
    if (k > 0) EXPECT_GE(next[k - 1].probability, next[k].probability);
  }
  EXPECT_LE(total, 1.0 + 1e-12);
  const auto encoder = Transformer::load(test::golden_dir() / "encoders" / "roberta", test::test_device());
  const TextCaptures e = text_captures(encoder->forward({{0, 5, 2}}), 0, true);
  EXPECT_THROW(next_tokens(*encoder, e, 5), Error);
  const TextCaptures cut =
      text_captures(model->forward({{1, 5, 9}}, {.last_layer = LastLayer::HeadOutputsOnly}), 0, true);
  EXPECT_THROW(next_tokens(*model, cut, 5), Error);
}

nlohmann::json llama_config() {
  return {{"model_type", "llama"},    {"vocab_size", 10},
          {"hidden_size", 8},         {"num_hidden_layers", 2},
          {"num_attention_heads", 4}, {"num_key_value_heads", 2},
          {"intermediate_size", 12},  {"max_position_embeddings", 32}};
}

TEST(DecoderConfig, ReadsGroupedHeadsAndTheirWidth) {
  nlohmann::json json = llama_config();
  json["head_dim"] = 6;
  const ModelConfig c = ModelConfig::from_json(json, "config.json");
  EXPECT_EQ(c.kv_heads(), 2);
  EXPECT_EQ(c.head_dim(), 6);
  EXPECT_EQ(c.activation, Activation::Silu);
  EXPECT_FALSE(c.biases.qkv);
  EXPECT_DOUBLE_EQ(c.scores_scale(), 1.0 / std::sqrt(6.0));
}

TEST(DecoderConfig, RefusesWhatItCannotRunInOneLine) {
  const auto refused = [](nlohmann::json json, const std::string& why) {
    try {
      ModelConfig::from_json(json, "config.json");
      ADD_FAILURE() << "accepted: " << json.dump();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  nlohmann::json json = llama_config();
  json["num_key_value_heads"] = 3;
  refused(json, "does not divide");
  json = llama_config();
  json["rope_parameters"] = {{"rope_type", "llama3"}, {"rope_theta", 500000.0}, {"factor", 8.0}};
  refused(json, "rope type \"llama3\" is not supported yet");
  json = llama_config();
  json["model_type"] = "gpt_bigcode";
  refused(json, "modernbert, llama, mistral, qwen2, qwen3, gemma3_text");
}

}  // namespace
}  // namespace attnscope
