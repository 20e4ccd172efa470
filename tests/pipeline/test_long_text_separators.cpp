// A long text's separators from a lens (pipeline/long_text_separators.h): the column attention of
// the norm-based maps and of rollout, made from the maps made again a block of rows at a time, equal
// (to float rounding) what separator_columns makes from the whole maps, on the real MiniLM at 512
// tokens and on a tiny random decoder (causal, sliding window: each column over the queries that see
// it); the pipeline finds the same separators either way.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <nlohmann/json.hpp>

#include "analysis/text_analysis.h"
#include "base/error.h"
#include "pipeline/long_text_separators.h"
#include "pipeline/text_pipeline.h"
#include "support/long_text_views.h"
#include "support/minilm.h"
#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

std::string name(SeparatorInput input) {
  return input == SeparatorInput::Norm ? "norm" : input == SeparatorInput::Rollout ? "rollout" : "attention";
}

void expect_same_columns(const at::Tensor& made_again, const at::Tensor& whole, const std::string& what) {
  ASSERT_EQ(made_again.sizes(), whole.sizes()) << what;
  EXPECT_TRUE(at::allclose(made_again, whole.cpu(), 1e-5, 1e-7))
      << what << ": largest difference " << (made_again - whole.cpu()).abs().max().item<float>();
}

TEST(LongTextSeparators, ColumnsOfALensEqualThoseOfTheWholeMaps) {
  const test::BothPaths& b = test::both_paths();
  const AttentionBlockRows blocks =
      recomputed_attention_blocks(test::minilm_checkpoint().model(), b.long_text.captures);
  for (const SeparatorInput input : {SeparatorInput::Attention, SeparatorInput::Norm, SeparatorInput::Rollout})
    expect_same_columns(long_text_separator_columns(blocks, b.long_text.captures, input),
                        separator_columns(b.maps.captures, input), "MiniLM, " + name(input));
}

TEST(LongTextSeparators, ADecodersColumnsCountTheQueriesThatSeeThem) {
  const nlohmann::json& golden = test::golden("decoder_head_roles.json")["mistral"];
  const auto ids = golden["ids"].get<std::vector<int64_t>>();
  const auto model = Transformer::load(test::golden_dir() / "decoders" / "mistral", test::test_device());
  const TextCaptures maps = text_captures(model->forward({ids}, {.lenses = true}), 0, true);
  const TextCaptures again =
      text_captures(model->forward({ids}, {.kept = KeptAttention::QueriesAndKeys, .lenses = true}), 0, true);
  ASSERT_FALSE(again.attention.defined());
  const AttentionBlockRows blocks = recomputed_attention_blocks(*model, again);
  for (const SeparatorInput input : {SeparatorInput::Norm, SeparatorInput::Rollout})
    expect_same_columns(long_text_separator_columns(blocks, again, input), separator_columns(maps, input),
                        "mistral, " + name(input));
}

// A decoder past its window and past blocks of 64 rows (a tiny Gemma 3 at 230 tokens): each block
// of its maps made again holds the keys its rows may see alone (a local layer's from past its
// first key), and the lenses' columns summed from them equal those of its maps kept.
TEST(LongTextSeparators, ADecodersBlocksOverTheKeysTheyHoldGiveItsColumns) {
  const test::DecoderBothPaths& b = test::decoder_both_paths();
  const AttentionBlockRows blocks = recomputed_attention_blocks(*b.model, b.long_text.captures);
  EXPECT_LT(blocks(3, -1, {0, 64}).keys.count, b.long_text.captures.length);  // a global layer's first rows
  EXPECT_GT(blocks(0, -1, {128, 64}).keys.first, 0);                          // a local layer's later rows
  for (const SeparatorInput input : {SeparatorInput::Norm, SeparatorInput::Rollout})
    expect_same_columns(long_text_separator_columns(blocks, b.long_text.captures, input, {.block_rows = 64}),
                        separator_columns(b.maps.captures, input), "gemma3, " + name(input));
}

// Stopped between blocks when asked; the norm-based maps without the value vectors' norms, or no
// maps to make again, in one line.
TEST(LongTextSeparators, StopsWhenAskedAndSaysWhatItLacks) {
  const test::BothPaths& b = test::both_paths();
  const AttentionBlockRows blocks =
      recomputed_attention_blocks(test::minilm_checkpoint().model(), b.long_text.captures);
  for (const SeparatorInput input : {SeparatorInput::Norm, SeparatorInput::Rollout})
    EXPECT_THROW(long_text_separator_columns(blocks, b.long_text.captures, input, {.keep_going = [] { return false; }}),
                 Cancelled);
  TextCaptures without_lenses = b.long_text.captures;
  without_lenses.value_norms = at::Tensor();
  EXPECT_THROW(long_text_separator_columns(blocks, without_lenses, SeparatorInput::Norm), Error);
  EXPECT_THROW(long_text_separator_columns({}, b.long_text.captures, SeparatorInput::Rollout), Error);
  EXPECT_TRUE(needs_long_text_separator_columns(b.long_text.captures, SeparatorInput::Norm));
  EXPECT_FALSE(needs_long_text_separator_columns(b.long_text.captures, SeparatorInput::Attention));
  EXPECT_FALSE(needs_long_text_separator_columns(b.maps.captures, SeparatorInput::Rollout));
}

// Through the pipeline (as `analyze` and the explorer run it): a long text's separators from a lens
// are those of the same text with every map kept.
TEST(LongTextSeparators, ThePipelineFindsALongTextsSeparatorsInALens) {
  TextPipeline pipeline(test::minilm_dir().string(), test::test_device());
  const std::string text = "The cat sat on the mat. Then it slept; the dog, however, barked at the door all night.";
  for (const SeparatorInput input : {SeparatorInput::Norm, SeparatorInput::Rollout}) {
    TextPipelineOptions o;
    o.settings.separators_from = input;
    const TextPipelineResult whole = pipeline.run(text, o);
    o.long_texts = CapturePlan{.maps_up_to = 4};
    const TextPipelineResult long_text = pipeline.run(text, o);
    ASSERT_FALSE(long_text.captures.attention.defined());
    ASSERT_EQ(long_text.analysis.heads.size(), whole.analysis.heads.size());
    for (size_t k = 0; k < whole.analysis.heads.size(); ++k)
      EXPECT_EQ(long_text.analysis.heads[k].separators.positions, whole.analysis.heads[k].separators.positions)
          << "head " << k;
    for (size_t l = 0; l < whole.analysis.layers.size(); ++l)
      EXPECT_EQ(long_text.analysis.layers[l].separators.positions, whole.analysis.layers[l].separators.positions);
    EXPECT_EQ(long_text.analysis.segment_separators.positions, whole.analysis.segment_separators.positions);
  }
}

}  // namespace
}  // namespace attnscope
