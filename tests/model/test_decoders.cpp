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
#include "model/tensor_source.h"
#include "model/token_matrix.h"
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
  // The ids of every case of the fixture, as one batch.
  std::vector<std::vector<int64_t>> case_ids() const {
    const nlohmann::json expected = test::read_json(dir() / "expected.json");  // held: the loop reads into it
    std::vector<std::vector<int64_t>> batch;
    for (const auto& c : expected["cases"]) batch.push_back(c["ids"].get<std::vector<int64_t>>());
    return batch;
  }
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

// Stopping the last layer at its head outputs except at each text's last token (the explorer's
// run on a decoder) leaves every capture as it is and gives each text's final state, batched
// with padding, as the complete forward's last row.
TEST_P(Decoder, LastTokenAloneRunsToTheEnd) {
  const auto model = Transformer::load(dir(), test::test_device());
  const std::vector<std::vector<int64_t>> batch = case_ids();
  const BatchCaptures complete = model->forward(batch);
  const BatchCaptures cut = model->forward(batch, {.last_layer = LastLayer::HeadOutputsOnly});
  const BatchCaptures last = model->forward(batch, {.last_layer = LastLayer::HeadOutputsAndLastToken});
  EXPECT_FALSE(cut.last_states.defined());
  ASSERT_TRUE(last.last_states.defined());
  EXPECT_TRUE(at::equal(last.all_attention, cut.all_attention));
  EXPECT_TRUE(at::equal(last.all_head_outputs, cut.all_head_outputs));
  ASSERT_EQ(last.last_states.sizes(), complete.last_states.sizes());
  const at::Tensor want = complete.last_states.to(at::kCPU, at::kFloat);
  const at::Tensor got = last.last_states.to(at::kCPU, at::kFloat);
  EXPECT_LE(gap(got, want), 1e-5 * want.abs().max().item<double>());
  for (size_t b = 0; b < batch.size(); ++b) {  // the complete forward's own: its last real row
    const at::Tensor row = complete.hidden_states.back()[static_cast<int64_t>(b)][complete.lengths[b] - 1];
    EXPECT_TRUE(at::equal(complete.last_states[static_cast<int64_t>(b)], row));
  }
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
  const std::vector<std::vector<int64_t>> batch = case_ids();
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

// Without captures the forward takes other kernels (scaled dot-product attention, or the explicit
// path where scores are soft-capped); its last hidden state is transformers' all the same.
TEST_P(Decoder, ForwardWithoutCapturesEndsTheSame) {
  const auto model = Transformer::load(dir(), test::test_device());
  const nlohmann::json expected = test::read_json(dir() / "expected.json");
  for (const auto& c : expected["cases"]) {
    const BatchCaptures plain = model->forward({c["ids"].get<std::vector<int64_t>>()}, {.capture = false});
    const at::Tensor last = test::nested_tensor(c["hidden_states"].back());
    EXPECT_LT(gap(plain.hidden_states.back()[0].to(at::kCPU, at::kDouble), last), 1e-4) << c["ids"].size() << " tokens";
  }
}

// The lenses' value norms read each query head's group's shared V through the head's own W_O:
// the first token attends only to itself, so C_0^h = v_0^{g(h)} and ||f_h(x_0)|| = ||C_0^h W_O^h||,
// W_O^h the columns of the output projection for head h (read here from the file, GPT-2's Conv1D
// turned to [out, in]).
TEST_P(Decoder, LensValueNormsReadTheGroupsSharedValues) {
  const auto output_projection = [&](const SafetensorsSource& file, int64_t l) {
    const std::string layer = std::to_string(l);
    if (GetParam() == "gpt2") return file.read("transformer.h." + layer + ".attn.c_proj.weight").t();
    if (GetParam().starts_with("gpt_neox")) return file.read("gpt_neox.layers." + layer + ".attention.dense.weight");
    return file.read("model.layers." + layer + ".self_attn.o_proj.weight");
  };
  const auto model = Transformer::load(dir(), test::test_device());
  const nlohmann::json expected = test::read_json(dir() / "expected.json");
  const auto ids = expected["cases"][0]["ids"].get<std::vector<int64_t>>();
  const TextCaptures c = text_captures(model->forward({ids}, {.lenses = true}), 0, true);
  ASSERT_TRUE(c.value_norms.defined());
  const SafetensorsFile weights(dir() / "model.safetensors");
  const SafetensorsSource file(weights);
  const int64_t d = model->config().head_dim();
  for (int64_t l = 0; l < model->config().num_layers; ++l) {
    const at::Tensor w_o = output_projection(file, l).to(at::kDouble);
    for (int64_t h = 0; h < model->config().num_heads; ++h) {
      const at::Tensor c0 = c.head_outputs[l][h][0].to(at::kCPU, at::kDouble);
      const double norm = at::mv(w_o.narrow(1, h * d, d), c0).norm().item<double>();
      EXPECT_NEAR(c.value_norms[l][h][0].item<double>(), norm, 1e-5 * std::max(1.0, norm))
          << "layer " << l << " head " << h;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Families, Decoder,
                         ::testing::Values("llama", "mistral", "qwen2", "qwen3", "gemma2", "gemma3", "gpt2", "gpt_neox",
                                           "gpt_neox_sequential", "llama3_rope", "linear_rope", "qwen2_sliding"),
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
  const TextCaptures last = text_captures(
      model->forward({{1, 5, 9, 14}}, {.last_layer = LastLayer::HeadOutputsAndLastToken}), 0, true, false);
  const std::vector<NextToken> again = next_tokens(*model, last, 5);
  ASSERT_EQ(again.size(), next.size());
  for (size_t k = 0; k < next.size(); ++k) {
    EXPECT_EQ(again[k].id, next[k].id);
    EXPECT_NEAR(again[k].probability, next[k].probability, 1e-6);
  }
}

// The output matrix's scores equal torch's product up to each row's order of summation, on
// widths with and without a rest after the groups of 32, and a wrong-sized state is refused.
TEST(NextTokens, OutputScoresAreTheMatrixTimesTheState) {
  for (const int64_t d : {8, 32, 100, 576}) {
    const at::Tensor output = at::randn({3001, d}), state = at::randn({d});
    const at::Tensor scores = output_scores(output, state);
    // Against the product in float64, within a millionth of the sum of the terms' sizes (float32's
    // rounding over a row of up to 576 terms, in any order).
    const at::Tensor exact = at::mv(output.to(at::kDouble), state.to(at::kDouble));
    const at::Tensor sizes = at::mv(output.abs().to(at::kDouble), state.abs().to(at::kDouble));
    EXPECT_TRUE((scores.to(at::kDouble) - exact).abs().le(sizes * 1e-6).all().item<bool>()) << "width " << d;
    EXPECT_TRUE(at::equal(scores, output_scores(output, state))) << "the same every time";
    EXPECT_TRUE(at::equal(scores.narrow(0, 1000, 7), output_scores(output.narrow(0, 1000, 7), state)))
        << "a row's score whatever the rows beside it";
  }
  EXPECT_THROW(output_scores(at::randn({10, 8}), at::randn({9})), Error);
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
  json["rope_parameters"] = {{"rope_type", "yarn"}, {"rope_theta", 500000.0}, {"factor", 8.0}};
  refused(json, "rope type \"yarn\" is not supported yet");
  json["rope_parameters"] = {{"rope_type", 3}};
  refused(json, "must be a string");
  json = llama_config();
  json["partial_rotary_factor"] = 0.3;  // 0.3 of 2 dimensions
  refused(json, "an even number");
  json = llama_config();
  json["model_type"] = "gpt_bigcode";
  refused(json, "modernbert, mpnet, deberta-v2, llama, mistral, qwen2, qwen3, gemma2, gemma3_text, gpt2, gpt_neox");
  json = {{"model_type", "gpt2"},
          {"vocab_size", 10},
          {"n_embd", 8},
          {"n_layer", 2},
          {"n_head", 2},
          {"n_positions", 16},
          {"scale_attn_by_inverse_layer_idx", true}};
  refused(json, "scale_attn_by_inverse_layer_idx");
}

// Rotary scaling as transformers 5 writes it (rope_parameters) and as 4.x did (rope_theta beside
// rope_scaling, "type" for "rope_type"); GPT-2's feed-forward width when n_inner is null.
TEST(DecoderConfig, ReadsRotaryScalingOldAndNewAndGpt2Sizes) {
  nlohmann::json json = llama_config();
  json["rope_parameters"] = {{"rope_type", "llama3"},   {"rope_theta", 500000.0},
                             {"factor", 8.0},           {"low_freq_factor", 1.0},
                             {"high_freq_factor", 4.0}, {"original_max_position_embeddings", 16}};
  ModelConfig c = ModelConfig::from_json(json, "config.json");
  EXPECT_EQ(c.rotary.scaling.kind, RotaryScaling::Kind::Llama3);
  EXPECT_EQ(c.rotary.scaling.original_positions, 16);
  EXPECT_DOUBLE_EQ(c.rotary.global_theta, 500000.0);
  json = llama_config();
  json["rope_theta"] = 7000.0;
  json["rope_scaling"] = {{"type", "linear"}, {"factor", 2.0}};
  c = ModelConfig::from_json(json, "config.json");
  EXPECT_EQ(c.rotary.scaling.kind, RotaryScaling::Kind::Linear);
  EXPECT_DOUBLE_EQ(c.rotary.scaling.factor, 2.0);
  EXPECT_DOUBLE_EQ(c.rotary.global_theta, 7000.0);
  EXPECT_EQ(c.rotary_dims(), c.head_dim());
  json = {{"model_type", "gpt2"}, {"vocab_size", 10},  {"n_embd", 8},       {"n_layer", 2},
          {"n_head", 2},          {"n_positions", 16}, {"n_inner", nullptr}};
  c = ModelConfig::from_json(json, "config.json");
  EXPECT_EQ(c.intermediate_size, 32);
  EXPECT_TRUE(c.causal());
  EXPECT_DOUBLE_EQ(c.scores_scale(), 0.5);
}

// Qwen2 slides only where use_sliding_window asks, from max_window_layers on when layer_types is
// not written (4.x files).
TEST(DecoderConfig, Qwen2SlidesFromMaxWindowLayersOn) {
  nlohmann::json json = llama_config();
  json["model_type"] = "qwen2";
  json["sliding_window"] = 4;
  EXPECT_FALSE(ModelConfig::from_json(json, "config.json").has_local_layers());
  json["use_sliding_window"] = true;
  json["max_window_layers"] = 1;
  const ModelConfig c = ModelConfig::from_json(json, "config.json");
  EXPECT_FALSE(c.is_local_layer(0));
  EXPECT_TRUE(c.is_local_layer(1));
  EXPECT_EQ(c.rotary.local_window, 3);
}

}  // namespace
}  // namespace attnscope
