// The head roles of a text through the core's pipeline: MiniLM's text roles and its induction
// probe, made and run by text_head_roles inside the tokenizer's template, equal the independent
// reference (tools/reference_head_roles.py); a model's reach per layer.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "pipeline/text_head_roles.h"
#include "support/minilm.h"
#include "support/paths.h"

namespace attnscope {
namespace {

TEST(TextHeadRoles, MiniLMWithItsProbeAsTheReference) {
  const nlohmann::json& golden = test::golden("minilm_head_roles.json");
  const auto& text = golden["texts"][0];
  const Checkpoint& checkpoint = test::minilm_checkpoint();
  const TextRun run = checkpoint.run(text["text"].get<std::string>(), 128);
  ASSERT_EQ(run.encoding.ids(), text["ids"].get<std::vector<int64_t>>());
  EXPECT_EQ(checkpoint.tokenizer().special_ids(), golden["probe"]["excluded"].get<std::vector<int64_t>>());
  const HeadRoleScores s = text_head_roles(checkpoint, run);
  for (int64_t l = 0; l < s.layers(); ++l)
    for (int64_t h = 0; h < s.heads(); ++h) {
      EXPECT_NEAR(*s.score(HeadRole::Induction, l, h), golden["probe"]["induction"][l][h].get<double>(), 1e-6);
      EXPECT_NEAR(*s.score(HeadRole::PreviousToken, l, h), text["scores"]["previous token"][l][h].get<double>(), 1e-6);
    }
  const HeadRoleScores without = text_head_roles(checkpoint, run, {.induction = false});
  EXPECT_FALSE(without.score(HeadRole::Induction, 0, 0).has_value());
}

TEST(TextHeadRoles, ReachFollowsTheModelsLocalLayers) {
  ModelConfig config;
  config.num_layers = 3;
  config.rotary.local = {true, false, true};
  config.rotary.local_window = 64;
  const auto reach = attention_reach(config);
  ASSERT_EQ(reach.size(), 3u);
  EXPECT_EQ(reach[0].before, 64);
  EXPECT_EQ(reach[0].after, 64);
  EXPECT_EQ(reach[1].before, -1);
}

}  // namespace
}  // namespace attnscope
