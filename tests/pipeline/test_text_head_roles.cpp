// The head roles of a text through the core's pipeline: MiniLM's text roles and its induction
// probe, made and run by text_head_roles inside the tokenizer's template, equal the independent
// reference (tools/reference_head_roles.py); a model's reach per layer; tiny random decoders' roles
// equal the same reference's for decoders.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "pipeline/role_rows_from_blocks.h"
#include "pipeline/text_head_roles.h"
#include "pipeline/text_pipeline.h"
#include "support/head_role_scores.h"
#include "support/minilm.h"
#include "support/model_texts.h"
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

// A decoder's long text typed on at its end (SmolLM2, its maps not kept): its roles' rows of the
// tokens both texts start with are taken from the text before, the later rows' maps alone made
// again (one block of rows a layer), the scores within rounding of a run from scratch; rows kept by
// another model are not taken.
TEST(TextHeadRoles, ADecodersLongTextTypedOnTakesItsEarlierRowsFromTheTextBefore) {
  const std::string file =
      test::real_model_file("models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf").string();
  TextPipeline pipeline(file, test::test_device());
  const Transformer& model = pipeline.checkpoint()->model();
  TextPipelineOptions o;
  o.long_texts = CapturePlan{.maps_up_to = 4};
  o.max_length = 256;
  std::string text = "The cat sat on the mat, and the dog watched it from the door.";
  for (int k = 0; k < 3; ++k) text += " " + text;
  const TextPipelineResult was = pipeline.run(text, o);
  ASSERT_FALSE(was.captures.attention.defined()) << "a long text's";
  TextRoleRows kept;
  text_role_scores(model, was.captures, was.encoding.ids(), {.block_rows = 32, .keep = &kept});
  EXPECT_EQ(kept.ids, was.encoding.ids());
  const TextPipelineResult now = pipeline.run(text + " It purred.", o);
  const std::vector<int64_t> ids = now.encoding.ids();
  const int64_t L = model.config().num_layers, n = now.encoding.size();
  const auto blocks_made = [&](const TextRoleRows* resume, HeadRoleScores* scores = nullptr) {
    int64_t blocks = 0;
    TextRoleRows next;
    const HeadRoleScores s = text_role_scores(
        model, now.captures, ids,
        {.keep_going = [&] { return ++blocks > 0; }, .block_rows = 32, .keep = &next, .resume = resume});
    EXPECT_EQ(static_cast<int64_t>(next.layers.size()), L);
    if (scores) *scores = s;
    return blocks;
  };
  HeadRoleScores resumed(L, model.config().num_heads);
  EXPECT_EQ(blocks_made(&kept, &resumed), L);
  const HeadRoleScores fresh = text_role_scores(model, now.captures, ids, {.block_rows = 32});
  test::expect_scores_near(resumed, fresh, 1e-12);
  TextRoleRows other = kept;
  other.model = nullptr;
  EXPECT_EQ(blocks_made(&other), L * ((n + 31) / 32)) << "another model's rows";
}

// The same text's roles from the blocks of maps its forward made (pipeline/role_rows_from_blocks.h):
// no map made again, the scores those of the maps made again within their rounding; typed on at
// its end and continued, the rows before the forward's first block taken from the text before's.
// A layer whose blocks came out of order, or another text's rows, are made again.
TEST(TextHeadRoles, ADecodersLongTextsRolesComeFromItsForwardsBlocks) {
  const std::string file =
      test::real_model_file("models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf").string();
  TextPipeline pipeline(file, test::test_device());
  const Transformer& model = pipeline.checkpoint()->model();
  const int64_t L = model.config().num_layers;
  TextPipelineOptions o;
  o.long_texts = CapturePlan{.maps_up_to = 4};
  o.max_length = 256;
  o.block_rows = 32;
  o.continues = true;
  std::string text = "The cat sat on the mat, and the dog watched it from the door.";
  for (int k = 0; k < 3; ++k) text += " " + text;
  const auto roles = [&](const TextPipelineResult& r, RoleRowsFromBlocks* from_blocks, TextRoleRows* keep,
                         int64_t& blocks) {
    blocks = 0;
    return text_role_scores(model, r.captures, r.encoding.ids(),
                            {.keep_going = [&] { return ++blocks > 0; }, .keep = keep, .from_blocks = from_blocks});
  };
  RoleRowsFromBlocks first_rows;
  o.role_rows = &first_rows;
  const TextPipelineResult was = pipeline.run(text, o);
  ASSERT_FALSE(was.captures.attention.defined()) << "a long text's";
  TextRoleRows kept;
  int64_t blocks = -1;
  const HeadRoleScores from_blocks = roles(was, &first_rows, &kept, blocks);
  EXPECT_EQ(blocks, 0) << "no map made again";
  EXPECT_EQ(static_cast<int64_t>(kept.layers.size()), L);
  test::expect_scores_near(from_blocks, text_role_scores(model, was.captures, was.encoding.ids()), 1e-6);
  SCOPED_TRACE("typed on at its end");
  RoleRowsFromBlocks next_rows(&kept);
  o.role_rows = &next_rows;
  const TextPipelineResult now = pipeline.run(text + " It purred.", o);
  ASSERT_GT(now.blocks_from, 0) << "its blocks from the last one on";
  const HeadRoleScores continued = roles(now, &next_rows, nullptr, blocks);
  EXPECT_EQ(blocks, 0);
  test::expect_scores_near(continued, text_role_scores(model, now.captures, now.encoding.ids()), 1e-6);
  EXPECT_EQ(roles(now, &next_rows, nullptr, blocks).layers(), L);
  EXPECT_GT(blocks, 0) << "each layer's rows taken once";
}

TEST(RoleRowsFromBlocks, ABlockOutOfOrderOrAnotherTextIsLeftToBeMadeAgain) {
  const auto model = Transformer::load(test::golden_dir() / "decoders" / "llama", test::test_device());
  const std::vector<int64_t> ids = test::spread_token_ids(*model, 40, 2);
  RoleRowsFromBlocks rows;
  rows.start(*model, ids);
  EXPECT_TRUE(rows.holds(*model, ids));
  EXPECT_FALSE(rows.holds(*model, std::vector<int64_t>(ids.begin(), ids.end() - 1)));
  const int64_t H = model->config().num_heads;
  const auto block = [&](int64_t first, int64_t count) {
    return AttentionBlock{at::full({1, H, count, 40}, 1.0 / 40), {first, count}, {0, 40}, 40};
  };
  for (const int64_t first : {0, 10, 20, 30}) rows.add(0, block(first, 10));
  for (const int64_t first : {0, 20, 30}) rows.add(1, block(first, 10));  // rows 10 to 19 missing
  EXPECT_TRUE(rows.take_layer(0));
  EXPECT_FALSE(rows.take_layer(0)) << "taken once";
  EXPECT_FALSE(rows.take_layer(1));
  EXPECT_FALSE(rows.take_layer(2)) << "no block came";
  rows.add(1, block(0, 40));  // begun again from its first row
  EXPECT_TRUE(rows.take_layer(1));
  RoleRowsFromBlocks without_rows_before;
  without_rows_before.start(*model, ids);
  without_rows_before.add(0, block(20, 20));
  EXPECT_FALSE(without_rows_before.take_layer(0)) << "a block after the first with no rows before to take";
}

}  // namespace
}  // namespace attnscope
