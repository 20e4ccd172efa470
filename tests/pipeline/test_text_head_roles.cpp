// The head roles of a text through the core's pipeline: MiniLM's text roles and its induction
// probe, made and run by text_head_roles inside the tokenizer's template, equal the independent
// reference (tools/reference_head_roles.py); a model's reach per layer; tiny random decoders' roles
// equal the same reference's for decoders.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "pipeline/text_head_roles.h"
#include "support/minilm.h"
#include "support/paths.h"
#include "support/test_device.h"

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
  EXPECT_EQ(reach[1].after, -1);
}

// A decoder's rows see no key after their own: in its global layers every key before, in its
// sliding-window layers the window's.
TEST(TextHeadRoles, ADecodersReachEndsAtEachRow) {
  const auto model = Transformer::load(test::golden_dir() / "decoders" / "gemma3", test::test_device());
  const auto reach = attention_reach(model->config());
  ASSERT_EQ(reach.size(), 4u);
  for (const AttentionReach& r : reach) EXPECT_EQ(r.after, 0);
  EXPECT_EQ(reach[0].before, 4);  // a window of 5: the row itself and the 4 before it
  EXPECT_EQ(reach[1].before, -1);
}

// Tiny random decoders (causal; sliding windows in every layer; in some) against the independent
// reference: next and end token undefined, each row's entropy over the log of the keys it sees;
// from the maps kept and from the maps made again in blocks of a few rows over the keys they see.
class DecoderRoles : public ::testing::TestWithParam<std::string> {};

TEST_P(DecoderRoles, EqualTheReference) {
  const nlohmann::json& golden = test::golden("decoder_head_roles.json")[GetParam()];
  const auto ids = golden["ids"].get<std::vector<int64_t>>();
  const auto model = Transformer::load(test::golden_dir() / "decoders" / GetParam(), test::test_device());
  const TextCaptures maps = text_captures(model->forward({ids}), 0, true);
  const TextCaptures again = text_captures(model->forward({ids}, {.kept = KeptAttention::QueriesAndKeys}), 0, true);
  ASSERT_FALSE(again.attention.defined());
  for (const HeadRoleScores& s :
       {text_role_scores(*model, maps, ids), text_role_scores(*model, again, ids, {.block_rows = 4})})
    for (const HeadRole role : kHeadRoles) {
      if (role == HeadRole::Induction) continue;
      const nlohmann::json& want = golden["scores"][std::string(head_role_name(role))];
      for (int64_t l = 0; l < s.layers(); ++l)
        for (int64_t h = 0; h < s.heads(); ++h) {
          const auto got = s.score(role, l, h);
          const std::string where =
              std::string(head_role_name(role)) + " " + std::to_string(l) + ":" + std::to_string(h);
          ASSERT_EQ(got.has_value(), !want[l][h].is_null()) << where;
          if (got) EXPECT_NEAR(*got, want[l][h].get<double>(), 1e-6) << where;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Families, DecoderRoles, ::testing::Values("llama", "mistral", "gemma3"));

}  // namespace
}  // namespace attnscope
