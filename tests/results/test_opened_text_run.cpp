// A result file opened without its model (results/opened_text_run.h): the analysis, from its stored
// pairs and statistics and the captures, equals the run's, a long text's maps made from its queries and keys by the
// configuration in the file equal the model's to the bit, and what cannot be shown without the
// model is refused in one line.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "base/error.h"
#include "model/checkpoint.h"
#include "pipeline/long_text_lens_pairs.h"
#include "pipeline/long_text_separators.h"
#include "results/analysis_json.h"
#include "results/opened_text_run.h"
#include "support/paths.h"
#include "tiny_text_run.h"
#include "support/test_device.h"
#include "support/tiny_bert.h"

namespace attnscope {
namespace {

class OpenedTextRunTest : public ::testing::Test {
 protected:
  // `kept`: what the run keeps; the analysis with these settings, written with `captures`.
  std::filesystem::path written(KeptAttention kept, CaptureSet captures, const AnalysisSettings& settings = {}) {
    file_.run = checkpoint_->run(file_.text, 16, {.kept = kept});
    AnalysisRun run;  // a long text's separators and pairs from a lens made as the pipeline makes them
    if (needs_long_text_separator_columns(file_.run.captures, settings.separators_from))
      run.separator_columns =
          long_text_separator_columns(recomputed_attention_blocks(checkpoint_->model(), file_.run.captures),
                                      file_.run.captures, settings.separators_from);
    if (!file_.run.captures.attention.defined()) {
      const auto captures = std::make_shared<const TextCaptures>(file_.run.captures);
      const auto checkpoint = checkpoint_;
      find_long_text_pairs_in_lens(
          run,
          {[checkpoint, captures] { return recomputed_attention_blocks(checkpoint->model(), *captures); }, captures},
          settings.pairs_from);
    }
    analysis_ = analyze_text(file_.run.encoding, file_.run.captures, settings, run);
    const auto path = dir_ / "r.safetensors";
    save_text_run(path, file_, &analysis_, {.captures = captures});
    return path;
  }

  // Every field of the run's analysis, the statistics to the bit (through the file's JSON and back).
  void expect_the_runs_analysis(const TextAnalysis& got) {
    ASSERT_EQ(got.heads.size(), analysis_.heads.size());
    for (size_t k = 0; k < got.heads.size(); ++k) {
      const HeadAnalysis &a = got.heads[k], &b = analysis_.heads[k];
      EXPECT_EQ(a.scale, b.scale) << "head " << k;
      EXPECT_EQ(a.pair_count, b.pair_count) << "head " << k;
      const auto l = static_cast<int64_t>(k) / got.num_heads, h = static_cast<int64_t>(k) % got.num_heads;
      // A long text's run keeps no mask: the file's were made again as it was written.
      EXPECT_EQ(got.pair_mask(l, h).bits(), analysis_.pair_mask(l, h).bits()) << "head " << k;
      EXPECT_EQ(a.separators.positions, b.separators.positions) << "head " << k;
      EXPECT_EQ(a.separators.column_share, b.separators.column_share) << "head " << k;
      EXPECT_EQ(head_stats_to_json(a.stats), head_stats_to_json(b.stats)) << "head " << k;
      EXPECT_EQ(a.stats.distance_histogram, b.stats.distance_histogram) << "head " << k;
    }
    ASSERT_EQ(got.layers.size(), analysis_.layers.size());
    for (size_t l = 0; l < got.layers.size(); ++l) {
      EXPECT_EQ(got.layers[l].distance_histogram, analysis_.layers[l].distance_histogram) << "layer " << l;
      EXPECT_EQ(got.layers[l].distinct_anchors, analysis_.layers[l].distinct_anchors) << "layer " << l;
      EXPECT_EQ(got.layers[l].separators.positions, analysis_.layers[l].separators.positions) << "layer " << l;
    }
    EXPECT_EQ(got.segment_separators.positions, analysis_.segment_separators.positions);
    EXPECT_EQ(got.facts.sentence, analysis_.facts.sentence);
    EXPECT_EQ(settings_to_json(got.settings), settings_to_json(analysis_.settings));
    EXPECT_TRUE(at::allclose(got.similarity.norms, analysis_.similarity.norms, 1e-6, 1e-7));
  }

  test::TinyTextRun tiny_;
  const test::TempDir& dir_ = tiny_.dir;
  std::shared_ptr<const Checkpoint>& checkpoint_ = tiny_.checkpoint;
  TextRunFile& file_ = tiny_.file;
  TextAnalysis analysis_;
};

TEST_F(OpenedTextRunTest, AShortTextKeepsItsMapsAndItsAnalysis) {
  AnalysisSettings settings;
  settings.tau = 0.45;
  settings.separators_text_only = true;
  const OpenedTextRun opened = open_text_run(written(KeptAttention::Maps, CaptureSet::All, settings));
  EXPECT_FALSE(opened.scores);  // its maps are in the file
  EXPECT_TRUE(at::equal(opened.file.run.captures.attention, file_.run.captures.attention));
  EXPECT_TRUE(opened.analysis.settings.separators_text_only);
  expect_the_runs_analysis(opened.analysis);
  for (const HeadAnalysis& head : opened.analysis.heads)  // the file's masks, kept
    EXPECT_EQ(head.pairs.tokens(), opened.analysis.length);
}

// Pairs of another matrix than S are found again (with the matrix they are listed from).
TEST_F(OpenedTextRunTest, PairsOfAnotherMatrixAreFoundAgain) {
  AnalysisSettings settings;
  settings.pairs_from = PairInput::Cosine;
  const OpenedTextRun opened = open_text_run(written(KeptAttention::Maps, CaptureSet::All, settings));
  expect_the_runs_analysis(opened.analysis);
}

// Its pair masks too, as a view asks for a head's: the file's are counted, not kept (a gigabyte at
// 8,192 tokens), as a long text's run keeps none; or kept up to the bytes asked (the explorer's).
TEST_F(OpenedTextRunTest, ALongTextsMapsAreMadeAgainWithoutTheModel) {
  const auto path = written(KeptAttention::QueriesAndKeys, CaptureSet::QueriesAndKeys);
  const OpenedTextRun opened = open_text_run(path);
  ASSERT_TRUE(opened.scores);
  expect_the_runs_analysis(opened.analysis);
  int64_t pairs = 0;
  for (const HeadAnalysis& head : opened.analysis.heads) {
    EXPECT_EQ(head.pairs.tokens(), 0);
    pairs += head.pair_count;
  }
  EXPECT_GT(pairs, 0);
  const TextRunFile read = load_text_run(path);  // every mask, as read: the bytes of the first two
  const uint64_t two = read.analysis->pairs[0].stored_bytes() + read.analysis->pairs[1].stored_bytes();
  const OpenedTextRun kept = open_text_run(path, {}, two);
  expect_the_runs_analysis(kept.analysis);
  for (size_t k = 0; k < kept.analysis.heads.size(); ++k)
    EXPECT_EQ(kept.analysis.heads[k].pairs.tokens(), k < 2 ? kept.analysis.length : 0) << "head " << k;
  const TextCaptures& c = opened.file.run.captures;
  const Transformer& model = checkpoint_->model();
  for (int64_t l = 0; l < c.num_layers; ++l) {
    const at::Tensor want = model.recompute_attention(file_.run.captures.queries[l], file_.run.captures.keys[l], l);
    const at::Tensor got = opened.scores->recompute(opened.scores->recompute_inputs(c.queries[l], c.keys[l], l));
    EXPECT_TRUE(at::equal(got, want)) << "layer " << l;
  }
}

// Separators from rollout of a long text: made again from the file's queries and keys as the run
// made them from the model's, to the bit.
TEST_F(OpenedTextRunTest, ALongTextsSeparatorsFromALensAreMadeAgainWithoutTheModel) {
  AnalysisSettings settings;
  settings.separators_from = SeparatorInput::Rollout;
  const OpenedTextRun opened =
      open_text_run(written(KeptAttention::QueriesAndKeys, CaptureSet::QueriesAndKeys, settings));
  ASSERT_TRUE(opened.scores);
  expect_the_runs_analysis(opened.analysis);
  EXPECT_TRUE(separator_columns_made_again(opened, settings).defined());
  EXPECT_FALSE(separator_columns_made_again(opened, {}).defined());  // the attention's are kept
}

// A long text's pairs from a lens: found again from the file's queries and keys, as the run found
// them with the model's, and listed with the same values.
TEST_F(OpenedTextRunTest, ALongTextsPairsFromALensAreFoundAgainWithoutTheModel) {
  for (const PairInput input : {PairInput::Attention, PairInput::Rollout}) {
    SCOPED_TRACE(pair_input_name(input));
    AnalysisSettings settings;
    settings.pairs_from = input;
    settings.tau = 0.1;  // the tiny model's maps are nearly flat
    const OpenedTextRun opened =
        open_text_run(written(KeptAttention::QueriesAndKeys, CaptureSet::QueriesAndKeys, settings));
    ASSERT_TRUE(opened.scores);
    expect_the_runs_analysis(opened.analysis);
    int64_t pairs = 0;
    for (int64_t l = 0; l < analysis_.num_layers; ++l) {
      const auto got = head_pairs(opened.analysis, l, 0), want = head_pairs(analysis_, l, 0);
      ASSERT_EQ(got.size(), want.size());
      for (size_t p = 0; p < got.size(); ++p) EXPECT_EQ(got[p].value, want[p].value) << "layer " << l;
      pairs += static_cast<int64_t>(got.size());
    }
    EXPECT_GT(pairs, 0);
  }
}

TEST_F(OpenedTextRunTest, WhatNeedsTheModelIsRefusedInOneLine) {
  const auto refused = [](const std::filesystem::path& path, const std::string& part) {
    try {
      open_text_run(path);
      ADD_FAILURE() << "opened: " << path;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  };
  refused(written(KeptAttention::Maps, CaptureSet::Attention), "keeps no head outputs (captures \"attention\")");
  refused(written(KeptAttention::Maps, CaptureSet::None), "keeps no head outputs (captures \"none\")");
  refused(dir_ / "missing.safetensors", "no such file");
}

}  // namespace
}  // namespace attnscope
