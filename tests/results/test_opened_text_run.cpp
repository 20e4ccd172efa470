// A result file opened without its model (results/opened_text_run.h): the analysis made again from
// its captures equals the run's, a long text's maps made from its queries and keys by the
// configuration in the file equal the model's to the bit, and what cannot be shown without the
// model is refused in one line.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "base/error.h"
#include "model/checkpoint.h"
#include "results/opened_text_run.h"
#include "support/paths.h"
#include "support/test_device.h"
#include "support/tiny_bert.h"

namespace attnscope {
namespace {

class OpenedTextRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write_tiny_bert(dir_.path() / "model", {});
    checkpoint_ = Checkpoint::load(dir_.path() / "model", test::test_device());
    file_.model_path = (dir_.path() / "model").string();
    file_.model_config = checkpoint_->model().config().to_json();
    file_.device = "cpu float32";
    file_.text = "The cat sat on the mat. The dog sat.";
    file_.max_length = 16;
  }

  // `kept`: what the run keeps; the analysis with these settings, written with `captures`.
  std::filesystem::path written(KeptAttention kept, CaptureSet captures, const AnalysisSettings& settings = {}) {
    file_.run = checkpoint_->run(file_.text, 16, {.kept = kept});
    analysis_ = analyze_text(file_.run.encoding, file_.run.captures, settings);
    const auto path = dir_ / "r.safetensors";
    save_text_run(path, file_, &analysis_, {.captures = captures});
    return path;
  }

  void expect_the_runs_analysis(const TextAnalysis& got) {
    ASSERT_EQ(got.heads.size(), analysis_.heads.size());
    for (size_t k = 0; k < got.heads.size(); ++k) {
      EXPECT_EQ(got.heads[k].scale, analysis_.heads[k].scale) << "head " << k;
      EXPECT_EQ(got.heads[k].pairs.bits(), analysis_.heads[k].pairs.bits()) << "head " << k;
      EXPECT_EQ(got.heads[k].separators.positions, analysis_.heads[k].separators.positions) << "head " << k;
      EXPECT_EQ(got.heads[k].stats.distance_histogram, analysis_.heads[k].stats.distance_histogram) << "head " << k;
      EXPECT_EQ(got.heads[k].stats.anchor_index, analysis_.heads[k].stats.anchor_index) << "head " << k;
    }
    EXPECT_EQ(got.segment_separators.positions, analysis_.segment_separators.positions);
    EXPECT_EQ(got.settings.tau, analysis_.settings.tau);
  }

  test::TempDir dir_;
  std::shared_ptr<const Checkpoint> checkpoint_;
  TextRunFile file_;
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
}

TEST_F(OpenedTextRunTest, ALongTextsMapsAreMadeAgainWithoutTheModel) {
  const OpenedTextRun opened = open_text_run(written(KeptAttention::QueriesAndKeys, CaptureSet::QueriesAndKeys));
  ASSERT_TRUE(opened.scores);
  expect_the_runs_analysis(opened.analysis);
  const TextCaptures& c = opened.file.run.captures;
  const Transformer& model = checkpoint_->model();
  for (int64_t l = 0; l < c.num_layers; ++l) {
    const at::Tensor want = model.recompute_attention(file_.run.captures.queries[l], file_.run.captures.keys[l], l);
    const at::Tensor got = opened.scores->recompute(opened.scores->recompute_inputs(c.queries[l], c.keys[l], l));
    EXPECT_TRUE(at::equal(got, want)) << "layer " << l;
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
