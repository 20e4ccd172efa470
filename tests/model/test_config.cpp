#include <gtest/gtest.h>

#include "base/error.h"
#include "model/config.h"
#include "support/paths.h"
#include "support/tiny_bert.h"

namespace attnscope {
namespace {

std::string config_error(nlohmann::json json) {
  try {
    ModelConfig::from_json(json, "config.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Config, ReadsTheArchitecture) {
  const ModelConfig c = ModelConfig::from_json(test::tiny_bert_config({}), "config.json");
  EXPECT_EQ(c.num_layers, 2);
  EXPECT_EQ(c.num_heads, 2);
  EXPECT_EQ(c.hidden_size, 8);
  EXPECT_EQ(c.head_dim(), 4);
  EXPECT_EQ(c.max_positions, 16);
  EXPECT_EQ(c.activation, Activation::GeluErf);
  EXPECT_EQ(ModelConfig::from_json(c.to_json(), "x").to_json(), c.to_json());
}

TEST(Config, TheRealMiniLMConfig) {
  const ModelConfig c = ModelConfig::load(test::minilm_dir() / "config.json");
  EXPECT_EQ(c.num_layers, 6);
  EXPECT_EQ(c.num_heads, 12);
  EXPECT_EQ(c.hidden_size, 384);
  EXPECT_EQ(c.head_dim(), 32);
  EXPECT_EQ(c.vocab_size, 30522);
}

TEST(Config, BadConfigsNameTheProblem) {
  auto base = test::tiny_bert_config({});
  auto without = [&](const char* key) {
    auto j = base;
    j.erase(key);
    return j;
  };
  auto with = [&](const char* key, nlohmann::json v) {
    auto j = base;
    j[key] = v;
    return j;
  };
  EXPECT_EQ(config_error(without("hidden_size")), "config.json: missing \"hidden_size\"");
  EXPECT_NE(config_error(with("num_hidden_layers", 0)).find("positive integer"), std::string::npos);
  EXPECT_NE(config_error(with("num_hidden_layers", "6")).find("positive integer"), std::string::npos);
  EXPECT_NE(config_error(with("num_hidden_layers", 2.5)).find("positive integer"), std::string::npos);
  EXPECT_NE(config_error(with("num_attention_heads", 3)).find("not a multiple"), std::string::npos);
  EXPECT_NE(config_error(with("model_type", "gpt_bigcode")).find("\"gpt_bigcode\" is not supported"),
            std::string::npos);
  EXPECT_NE(config_error(with("hidden_act", "mish")).find("unsupported \"hidden_act\""), std::string::npos);
  EXPECT_NE(config_error(with("position_embedding_type", "relative_key")).find("not supported"), std::string::npos);
  EXPECT_NE(config_error(with("layer_norm_eps", -1)).find("layer_norm_eps"), std::string::npos);
  EXPECT_NE(config_error(nlohmann::json::array()).find("expected a JSON object"), std::string::npos);
}

TEST(Config, FilesThatAreMissingOrNotJson) {
  const test::TempDir dir;
  EXPECT_THROW(ModelConfig::load(dir / "config.json"), Error);
  test::write_text(dir / "config.json", "{ not json");
  try {
    ModelConfig::load(dir / "config.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
  }
}

}  // namespace
}  // namespace attnscope
