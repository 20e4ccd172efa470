// The two real decoders opened from their GGUF files (tools/setup.sh fetches them) as
// transformers opens them: the same configuration derived from the metadata, the same ids for a
// held-out text, and the same attention maps and head outputs, against transformers' eager
// attention on the weights it dequantised itself (tools/make_decoder_gguf_golden.py): A within
// 1e-4, C within 1e-4 of its largest entry; and the same most likely next tokens.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "base/error.h"
#include "model/checkpoint.h"
#include "model/gguf_model.h"
#include "model/next_tokens.h"
#include "model/safetensors.h"
#include "model/tensor_source.h"
#include "model/transformer.h"
#include "support/golden_captures.h"
#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

class GgufDecoder : public ::testing::TestWithParam<std::string> {
 protected:
  nlohmann::json expected() const {
    return test::read_json(test::golden_dir() / "gguf" / (GetParam() + "_decoder.json"));
  }
  at::Tensor reference(const std::string& name) const {
    const SafetensorsFile file(test::golden_dir() / "gguf" / (GetParam() + "_decoder.safetensors"));
    return SafetensorsSource(file).read(name);
  }
};

TEST_P(GgufDecoder, DerivesTheConfigurationTransformersDerives) {
  const nlohmann::json e = expected();
  const auto path = test::real_model_file(e["file"].get<std::string>());
  if (!std::filesystem::exists(path)) return;
  const ModelConfig c = gguf_model_config(GgufFile(path));
  const nlohmann::json& t = e["config"];
  EXPECT_EQ(c.model_type, t["model_type"].get<std::string>());
  EXPECT_EQ(c.vocab_size, t["vocab_size"]);
  EXPECT_EQ(c.hidden_size, t["hidden_size"]);
  EXPECT_EQ(c.num_layers, t["num_hidden_layers"]);
  EXPECT_EQ(c.num_heads, t["num_attention_heads"]);
  EXPECT_EQ(c.kv_heads(), t["num_key_value_heads"]);
  EXPECT_EQ(c.head_dim(), t["head_dim"]);
  EXPECT_EQ(c.intermediate_size, t["intermediate_size"]);
  EXPECT_EQ(c.layer_norm_eps, t["rms_norm_eps"].get<double>());
  if (t.contains("layer_types"))
    for (size_t l = 0; l < t["layer_types"].size(); ++l)
      EXPECT_EQ(c.is_local_layer(l), t["layer_types"][l] == "sliding_attention") << "layer " << l;
  if (t.contains("sliding_window")) EXPECT_EQ(c.rotary.local_window, t["sliding_window"].get<int64_t>() - 1);
  const nlohmann::json& rope = t["rope_parameters"];
  EXPECT_EQ(c.rotary.global_theta, (rope.contains("full_attention") ? rope["full_attention"] : rope)["rope_theta"]);
  if (rope.contains("sliding_attention")) EXPECT_EQ(c.rotary.local_theta, rope["sliding_attention"]["rope_theta"]);
  if (t.contains("query_pre_attn_scalar"))
    EXPECT_DOUBLE_EQ(c.scores_scale(), 1.0 / std::sqrt(t["query_pre_attn_scalar"].get<double>()));
}

TEST_P(GgufDecoder, MapsAndHeadOutputsAreTransformers) {
  const nlohmann::json e = expected();
  const auto path = test::real_model_file(e["file"].get<std::string>());
  if (!std::filesystem::exists(path)) return;
  const auto checkpoint = Checkpoint::load(path, test::test_device());
  const auto ids = e["ids"].get<std::vector<int64_t>>();
  EXPECT_EQ(checkpoint->encode(e["text"].get<std::string>(), 512).ids(), ids) << "the file's own tokenizer";
  const TextCaptures c = text_captures(checkpoint->model().forward({ids}), 0, true);
  const at::Tensor attention = reference("attention"), outputs = reference("head_outputs");
  for (int64_t l = 0; l < attention.size(0); ++l)
    EXPECT_LT((c.attention[l] - attention[l]).abs().max().item<double>(), 1e-4) << "attention, layer " << l;
  const auto kept = e["kept_layers"].get<std::vector<int64_t>>();
  for (size_t k = 0; k < kept.size(); ++k)
    EXPECT_LT(test::relative_gap(c.head_outputs[kept[k]], outputs[static_cast<int64_t>(k)]), 1e-4)
        << "head outputs, layer " << kept[k];
  EXPECT_LT(test::relative_gap(c.hidden_states[c.hidden_states.size(0) - 1], reference("last_hidden")), 1e-3)
      << "the final norm's output";
}

// What the model would write next: transformers' ten most likely tokens after the text, in its
// order, with its probabilities, and each spelt as its tokenizer spells it.
TEST_P(GgufDecoder, NextTokensAreTransformers) {
  const nlohmann::json e = expected();
  const auto path = test::real_model_file(e["file"].get<std::string>());
  if (!std::filesystem::exists(path)) return;
  const auto checkpoint = Checkpoint::load(path, test::test_device());
  const auto ids = e["ids"].get<std::vector<int64_t>>();
  const TextCaptures c = text_captures(checkpoint->model().forward({ids}), 0, true);
  const std::vector<NextToken> next = next_tokens(checkpoint->model(), c, 10);
  const nlohmann::json& t = e["next_tokens"];
  ASSERT_EQ(next.size(), t["ids"].size());
  for (size_t k = 0; k < next.size(); ++k) {
    EXPECT_EQ(next[k].id, t["ids"][k].get<int64_t>()) << "rank " << k;
    EXPECT_NEAR(next[k].probability, t["probabilities"][k].get<double>(), 1e-5) << "rank " << k;
    EXPECT_EQ(checkpoint->tokenizer().piece(next[k].id), t["pieces"][k].get<std::string>()) << "rank " << k;
  }
}

// On the CPU in float32 the vocabulary's rows stay in the file's Q8_0 blocks (model/token_matrix.h):
// the rows the forward looks up are those read() dequantises, to the bit.
TEST_P(GgufDecoder, TheVocabularyKeptInItsBlocksIsTheDequantisedOne) {
  const auto path = test::real_model_file(expected()["file"].get<std::string>());
  if (!std::filesystem::exists(path)) return;
  const GgufFile file(path);
  const ModelConfig config = gguf_model_config(file);
  const GgufSource source(file, config);
  const std::optional<Q8Rows> rows = source.q8_rows("model.embed_tokens.weight");
  ASSERT_TRUE(rows.has_value()) << "both files store token_embd in Q8_0";
  const at::Tensor ids = at::cat({at::arange(0, config.vocab_size, 97), at::tensor({config.vocab_size - 1})});
  EXPECT_TRUE(at::equal(rows->rows_of(ids), source.read("model.embed_tokens.weight").index_select(0, ids)));
  EXPECT_FALSE(source.q8_rows("model.layers.0.self_attn.q_proj.weight").has_value())
      << "a tensor read() changes is not handed out as stored";
  EXPECT_TRUE(Checkpoint::load(path, select_device("cpu"))->model().output_weight().quantized());
}

INSTANTIATE_TEST_SUITE_P(Decoders, GgufDecoder, ::testing::Values("smollm2", "gemma3"));

// The families whose real GGUF files are not reachable here (GPT-2, Gemma 2), from tiny files
// written as llama.cpp's converter writes them (tools/make_tiny_gguf_golden.py): the configuration
// transformers derives, and A and C within 1e-5 of transformers' on opening the same file.
class GgufTinyFamily : public ::testing::TestWithParam<std::string> {
 protected:
  nlohmann::json expected() const { return test::read_json(test::golden_dir() / "gguf" / (GetParam() + "_tiny.json")); }
  std::filesystem::path file() const { return test::golden_dir() / "gguf" / (GetParam() + "_tiny.gguf"); }
};

TEST_P(GgufTinyFamily, DerivesTheConfigurationTransformersDerives) {
  const nlohmann::json e = expected(), &t = e["config"];
  const ModelConfig c = gguf_model_config(GgufFile(file()));
  EXPECT_EQ(c.model_type, t["model_type"].get<std::string>());
  EXPECT_EQ(c.vocab_size, t["vocab_size"]);
  EXPECT_EQ(c.hidden_size, t.value("hidden_size", t.value("n_embd", 0)));
  EXPECT_EQ(c.num_layers, t.value("num_hidden_layers", t.value("n_layer", 0)));
  EXPECT_EQ(c.num_heads, t.value("num_attention_heads", t.value("n_head", 0)));
  EXPECT_EQ(c.max_positions, t.value("max_position_embeddings", t.value("n_positions", 0)));
  if (t.contains("layer_types"))
    for (size_t l = 0; l < t["layer_types"].size(); ++l)
      EXPECT_EQ(c.is_local_layer(l), t["layer_types"][l] == "sliding_attention") << "layer " << l;
  if (t.contains("attn_logit_softcapping")) {
    EXPECT_EQ(c.attention_softcap, t["attn_logit_softcapping"].get<double>());
    EXPECT_EQ(c.output_softcap, t["final_logit_softcapping"].get<double>());
    EXPECT_DOUBLE_EQ(c.scores_scale(), 1.0 / std::sqrt(t["query_pre_attn_scalar"].get<double>()));
  }
}

TEST_P(GgufTinyFamily, MapsAndHeadOutputsAreTransformers) {
  const nlohmann::json e = expected();
  const GgufFile gguf(file());
  const auto model = Transformer::load_gguf(gguf, test::test_device());
  const TextCaptures c = text_captures(model->forward({e["ids"].get<std::vector<int64_t>>()}), 0, true);
  ASSERT_EQ(c.length, static_cast<int64_t>(e["ids"].size()));
  for (int64_t l = 0; l < c.num_layers; ++l)
    for (int64_t h = 0; h < c.num_heads; ++h) {
      const auto rows = e["attention"][l][h].get<std::vector<std::vector<float>>>();
      const auto outs = e["head_outputs"][l][h].get<std::vector<std::vector<float>>>();
      for (int64_t i = 0; i < c.length; ++i) {
        const at::Tensor a = at::tensor(rows[static_cast<size_t>(i)]), o = at::tensor(outs[static_cast<size_t>(i)]);
        EXPECT_LT((c.attention[l][h][i] - a).abs().max().item<double>(), 1e-5) << "A, layer " << l << " head " << h;
        EXPECT_LT((c.head_outputs[l][h][i] - o).abs().max().item<double>(), 1e-5) << "C, layer " << l << " head " << h;
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Families, GgufTinyFamily, ::testing::Values("gpt2", "gemma2"));

std::string config_error(const std::filesystem::path& file) {
  try {
    gguf_model_config(GgufFile(file));
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

// A file whose architecture attnscope does not run, or whose metadata lacks a number the
// configuration needs: one line naming it.
TEST(GgufModel, RefusesWhatItCannotRunInOneLine) {
  const test::TempDir dir;
  const auto write = [&](const std::string& architecture) {
    std::string bytes = "GGUF";
    const auto put = [&](uint64_t value, int size) {
      for (int i = 0; i < size; ++i) bytes.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
    };
    const std::string key = "general.architecture";
    put(3, 4), put(0, 8), put(1, 8);  // version, tensors, metadata entries
    put(key.size(), 8), bytes += key, put(8, 4), put(architecture.size(), 8), bytes += architecture;
    const auto path = dir / (architecture + ".gguf");
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  };
  EXPECT_NE(config_error(write("gptneox")).find("GGUF architecture \"gptneox\" is not supported"), std::string::npos)
      << config_error(write("gptneox"));
  EXPECT_NE(config_error(write("llama")).find("has no llama.embedding_length"), std::string::npos)
      << config_error(write("llama"));
}

}  // namespace
}  // namespace attnscope
