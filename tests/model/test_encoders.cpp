// Every encoder architecture besides BERT runs exactly as transformers runs it: tiny random-weight
// checkpoints saved by transformers itself, with its eager attention maps, the head outputs
// C = A V and the hidden states as the golden fixture (tools/make_encoder_golden.py). Each text
// is run alone (also as the explorer runs it, with its checks) and all of them as one padded batch.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <functional>

#include "base/error.h"
#include "model/transformer.h"
#include "model/checkpoint.h"
#include "model/config.h"
#include "support/golden_captures.h"
#include "support/nested_tensor.h"
#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

class Encoder : public ::testing::TestWithParam<std::string> {
 protected:
  std::filesystem::path dir() const { return test::golden_dir() / "encoders" / GetParam(); }
};

TEST_P(Encoder, MatchesTransformersAloneAndBatchedWithPadding) {
  const auto model = Transformer::load(dir(), test::test_device());
  const nlohmann::json expected = test::read_json(dir() / "expected.json");
  std::vector<std::vector<int64_t>> batch;
  for (const auto& c : expected["cases"]) {
    const auto ids = c["ids"].get<std::vector<int64_t>>();
    batch.push_back(ids);
    const BatchCaptures alone = model->forward({ids});
    test::expect_golden_case(text_captures(alone, 0, true), c,
                             GetParam() + " alone, " + std::to_string(ids.size()) + " tokens");
    // As the explorer runs it: checking between the slices of its products.
    const BatchCaptures checked =
        model->forward({ids}, {.last_layer = LastLayer::Complete, .keep_going = [] { return true; }});
    test::expect_golden_case(text_captures(checked, 0, true), c,
                             GetParam() + " with checks, " + std::to_string(ids.size()) + " tokens");
  }
  const BatchCaptures together = model->forward(batch);
  for (size_t b = 0; b < batch.size(); ++b)
    test::expect_golden_case(text_captures(together, b, true), expected["cases"][b],
                             GetParam() + " batched, text " + std::to_string(b));
}

INSTANTIATE_TEST_SUITE_P(Architectures, Encoder,
                         ::testing::Values("bert-large-shape", "roberta", "xlm-roberta", "electra", "albert",
                                           "albert-groups", "modernbert", "mpnet", "deberta-v2"),
                         [](const auto& info) { return test::test_name(info.param); });

// Whole checkpoints, text in: the tokenizer.json beside the weights gives transformers' ids, and
// the maps follow.
class WholeCheckpoint : public ::testing::TestWithParam<std::string> {};

TEST_P(WholeCheckpoint, TextInMapsOutAsTransformers) {
  const auto dir = test::golden_dir() / "checkpoints" / GetParam();
  const auto checkpoint = Checkpoint::load(dir, test::test_device());
  const nlohmann::json expected = test::read_json(dir / "expected.json");
  for (const auto& c : expected["cases"]) {
    const TextRun run = checkpoint->run(c["text"].get<std::string>(), 128);
    ASSERT_EQ(run.encoding.ids(), c["ids"].get<std::vector<int64_t>>()) << c["text"];
    test::expect_golden_case(run.captures, c, GetParam() + ": " + c["text"].get<std::string>());
  }
}

INSTANTIATE_TEST_SUITE_P(Architectures, WholeCheckpoint,
                         ::testing::Values("roberta", "modernbert", "xlm-roberta", "albert"),
                         [](const auto& info) { return test::test_name(info.param); });

TEST(WholeCheckpoint, ATokenizerLargerThanTheEmbeddingsIsRefused) {
  const test::TempDir tmp;
  std::filesystem::copy(test::golden_dir() / "checkpoints" / "roberta", tmp.path(),
                        std::filesystem::copy_options::recursive);
  std::filesystem::copy_file(test::golden_dir() / "encoders" / "roberta" / "model.safetensors",
                             tmp / "model.safetensors", std::filesystem::copy_options::overwrite_existing);
  nlohmann::json config = test::read_json(tmp / "config.json");
  config["vocab_size"] = 96;  // the weights of the small fixture, the tokenizer of the large one
  config["max_position_embeddings"] = 40;
  config["num_hidden_layers"] = 3;
  test::write_text(tmp / "config.json", config.dump());
  try {
    Checkpoint::load(tmp.path(), test::test_device());
    FAIL() << "loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the tokenizer has 1201 tokens, but config.json's vocab_size is 96"),
              std::string::npos)
        << e.what();
  }
}

TEST(EncoderConfig, EachArchitectureIsReadFromItsOwnKeys) {
  const auto load = [](const char* name) {
    return ModelConfig::load(test::golden_dir() / "encoders" / name / "config.json");
  };
  const ModelConfig roberta = load("roberta");
  EXPECT_EQ(roberta.architecture->family, "roberta");
  EXPECT_EQ(roberta.position_offset, 2);
  EXPECT_EQ(roberta.max_tokens(), 38);
  EXPECT_EQ(load("xlm-roberta").model_type, "xlm-roberta");
  EXPECT_EQ(load("xlm-roberta").activation, Activation::GeluTanh);
  EXPECT_EQ(load("electra").embedding_width(), 16);
  const ModelConfig albert = load("albert-groups");
  EXPECT_EQ(albert.num_layers, 8);  // 4 runs through 2 groups of 2 inner layers each
  EXPECT_EQ(albert.weight_groups, 2);
  const ModelConfig modern = load("modernbert");
  EXPECT_EQ(modern.architecture->family, "modernbert");
  EXPECT_EQ(modern.rotary.local, (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(modern.rotary.local_window, 4);
  EXPECT_EQ(modern.rotary.global_theta, 160000.0);
  EXPECT_FALSE(modern.norm_bias);
  const ModelConfig deberta = load("deberta-v2");
  EXPECT_EQ(deberta.architecture->positions, PositionScheme::Relative);
  EXPECT_TRUE(deberta.disentangled.content_to_position && deberta.disentangled.position_to_content);
  EXPECT_EQ(deberta.disentangled.span, 8);
  EXPECT_DOUBLE_EQ(deberta.scores_scale(), 1.0 / std::sqrt(8.0 * 3));  // d = 8, three terms
  nlohmann::json shared = test::read_json(test::golden_dir() / "encoders" / "deberta-v2" / "config.json");
  shared["share_att_key"] = false;
  EXPECT_THROW(ModelConfig::from_json(shared, "config.json"), Error);
  const ModelConfig mpnet = load("mpnet");
  EXPECT_EQ(mpnet.architecture->family, "mpnet");
  EXPECT_EQ(mpnet.position_offset, 2);
  EXPECT_EQ(mpnet.type_vocab_size, 0);
  EXPECT_EQ(mpnet.relative_buckets, 32);
  EXPECT_EQ(ModelConfig::from_json(mpnet.to_json(), "again").relative_buckets, 32);
  // Written back as read, so result files and corpus runs keep the architecture.
  EXPECT_EQ(ModelConfig::from_json(modern.to_json(), "again").rotary.local, modern.rotary.local);
  EXPECT_EQ(ModelConfig::from_json(albert.to_json(), "again").num_layers, 8);
}

TEST(EncoderConfig, OlderModernBertKeysAndRefusals) {
  nlohmann::json j = test::read_json(test::golden_dir() / "encoders" / "modernbert" / "config.json");
  j.erase("layer_types");
  j.erase("rope_parameters");
  j["global_attn_every_n_layers"] = 2;
  j["global_rope_theta"] = 80000.0;
  const ModelConfig older = ModelConfig::from_json(j, "config.json");
  EXPECT_EQ(older.rotary.local, (std::vector<bool>{false, true, false, true}));
  EXPECT_EQ(older.rotary.global_theta, 80000.0);
  EXPECT_EQ(older.rotary.local_theta, 10000.0);
  const auto error = [](const nlohmann::json& bad) {
    try {
      ModelConfig::from_json(bad, "config.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  nlohmann::json scaled = j;
  scaled["rope_scaling"] = {{"rope_type", "yarn"}};
  EXPECT_NE(error(scaled).find("rope_scaling is not supported"), std::string::npos);
  nlohmann::json bad_types = test::read_json(test::golden_dir() / "encoders" / "modernbert" / "config.json");
  bad_types["layer_types"] = {"full_attention"};
  EXPECT_NE(error(bad_types).find("one type per layer"), std::string::npos);
  EXPECT_EQ(error({{"model_type", "funnel"}}), "config.json: model_type \"funnel\" is not supported; attnscope reads " +
                                                   std::string(kSupportedModelTypes));
}

TEST(EncoderWeights, AMissingTensorNamesItAndThePrefixTried) {
  const test::TempDir tmp;
  std::filesystem::copy(test::golden_dir() / "encoders" / "electra", tmp.path(),
                        std::filesystem::copy_options::recursive);
  nlohmann::json config = test::read_json(tmp / "config.json");
  config["embedding_size"] = 32;  // the file's embeddings are 16 wide
  test::write_text(tmp / "config.json", config.dump());
  try {
    Transformer::load(tmp.path(), test::test_device());
    FAIL() << "a mismatched embedding width loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has shape [96, 16], expected [96, 32]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace attnscope
