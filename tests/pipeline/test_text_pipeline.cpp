// The core's one text pipeline (pipeline/text_pipeline.h): what it returns is what its parts give
// when called one after another, a run can be abandoned, and the rule for the lenses' captures.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <vector>

#include "analysis/word_level.h"
#include "base/error.h"
#include "model/reproducible_products.h"
#include "pipeline/text_head_roles.h"
#include "pipeline/text_pipeline.h"
#include "support/paths.h"
#include "support/test_device.h"
#include "support/tiny_bert.h"

namespace attnscope {
namespace {

constexpr const char* kText = "The cat sat on the mat. The dog sat.";

class TextPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write_tiny_bert(dir_.path(), {});
    pipeline_ = std::make_unique<TextPipeline>(dir_.path().string(), test::test_device());
  }
  test::TempDir dir_;
  std::unique_ptr<TextPipeline> pipeline_;
};

TEST_F(TextPipelineTest, GivesWhatItsPartsGiveOneAfterAnother) {
  const auto checkpoint = pipeline_->checkpoint();
  const TextPipelineResult r = pipeline_->run(kText, {});
  const TextRun run = checkpoint->run(kText, checkpoint->default_max_length());
  const TextAnalysis a = analyze_text(run.encoding, run.captures, {});
  EXPECT_EQ(r.encoding.ids(), run.encoding.ids());
  EXPECT_TRUE(at::equal(r.captures.attention, run.captures.attention));
  EXPECT_TRUE(at::equal(r.captures.head_outputs, run.captures.head_outputs));
  EXPECT_FALSE(r.captures.hidden_states.defined());  // stopped at the last head outputs by default
  EXPECT_FALSE(r.captures.value_norms.defined());    // no lens asked for
  ASSERT_EQ(r.analysis.heads.size(), a.heads.size());
  for (size_t k = 0; k < a.heads.size(); ++k) EXPECT_EQ(r.analysis.heads[k].pairs.count(), a.heads[k].pairs.count());
  EXPECT_EQ(r.device.describe(), test::test_device().describe());
}

TEST_F(TextPipelineTest, OptionsReachTheirStages) {
  TextPipelineOptions o;
  o.max_length = 6;
  o.lens_captures = true;
  o.last_layer = LastLayer::Complete;
  const TextPipelineResult r = pipeline_->run(kText, o);
  EXPECT_EQ(r.encoding.size(), 6u);
  EXPECT_TRUE(r.encoding.truncated);
  EXPECT_TRUE(r.captures.value_norms.defined());
  EXPECT_TRUE(r.captures.hidden_states.defined());
  o = {};
  o.settings.words = true;  // "##s" of "cats" joins its word
  const TextPipelineResult words = pipeline_->run("The cats sat.", o);
  const TextPipelineResult pieces = pipeline_->run("The cats sat.", {});
  EXPECT_EQ(words.encoding.size() + 1, pieces.encoding.size());
  EXPECT_EQ(words.analysis.length, static_cast<int64_t>(words.encoding.size()));
}

// A long text's run (past --maps-up-to) reports its forward block by block of maps and its scan
// for pairs group by group of heads, each rising to 1; its head roles begun, then layer by layer.
// A text whose maps are kept reports its forward layer by layer (Gemma 3's takes seconds at 2,048
// tokens), then its analysis begun, of unknown share. Its roles are abandoned when asked to stop.
TEST_F(TextPipelineTest, ALongTextReportsHowFarItsRunHasCome) {
  std::vector<std::pair<std::string, double>> reports;
  TextPipelineOptions o;
  o.long_texts = CapturePlan{.maps_up_to = 4};
  o.progress = [&](std::string_view stage, double fraction) { reports.emplace_back(stage, fraction); };
  const TextPipelineResult r = pipeline_->run(kText, o);
  ASSERT_FALSE(r.captures.attention.defined());
  const auto of = [&](const std::string& stage) {
    std::vector<double> fractions;
    for (const auto& [s, f] : reports)
      if (s == stage) fractions.push_back(f);
    return fractions;
  };
  for (const std::string stage : {"model", "pairs"}) {
    const std::vector<double> f = of(stage);
    ASSERT_FALSE(f.empty()) << stage;
    EXPECT_TRUE(std::is_sorted(f.begin(), f.end())) << stage;
    EXPECT_GT(f.front(), 0.0) << stage;
    EXPECT_DOUBLE_EQ(f.back(), 1.0) << stage;
  }
  EXPECT_EQ(reports.front().first, "model");
  EXPECT_EQ(reports.back().first, "pairs");
  reports.clear();
  const HeadRoleScores roles =
      text_head_roles(*pipeline_->checkpoint(), {r.encoding, r.captures}, {.induction = false, .progress = o.progress});
  std::vector<double> expected;
  for (int64_t l = 1; l <= roles.layers(); ++l) expected.push_back(static_cast<double>(l) / roles.layers());
  std::vector<double> begun_then_expected = {kShareUnknown};
  begun_then_expected.insert(begun_then_expected.end(), expected.begin(), expected.end());
  EXPECT_EQ(of("head roles"), begun_then_expected);
  // An edit abandons a long text's roles within a block of rows of its maps made again.
  int asked = 0;
  EXPECT_THROW(text_head_roles(*pipeline_->checkpoint(), {r.encoding, r.captures},
                               {.induction = false, .keep_going = [&] { return ++asked <= 1; }}),
               Cancelled);
  EXPECT_EQ(asked, 2);
  reports.clear();
  o.long_texts.reset();
  pipeline_->run(kText, o);
  EXPECT_EQ(of("model"), expected);
  EXPECT_EQ(of("analysis"), std::vector<double>{kShareUnknown});
  EXPECT_EQ(reports.size(), expected.size() + 1);
  EXPECT_EQ(reports.back().first, "analysis");
}

// Before its forward a run says what it will keep (what analyze reckons a result's size from),
// and what that throws ends it there: the forward never starts.
TEST_F(TextPipelineTest, ARunSaysWhatItKeepsBeforeItsForward) {
  std::vector<PlannedRun> planned;
  std::vector<std::string> stages;
  TextPipelineOptions o;
  o.lens_captures = true;
  o.before_forward = [&](const PlannedRun& p) { planned.push_back(p); };
  const TextPipelineResult maps = pipeline_->run(kText, o);
  ASSERT_EQ(planned.size(), 1u);
  EXPECT_EQ(planned[0].config, &pipeline_->checkpoint()->model().config());
  EXPECT_EQ(planned[0].tokens, static_cast<int64_t>(maps.encoding.size()));
  EXPECT_EQ(planned[0].kept, KeptAttention::Maps);
  EXPECT_TRUE(planned[0].lenses);
  o = {};
  o.long_texts = CapturePlan{.maps_up_to = 4};
  o.progress = [&](std::string_view stage, double) { stages.emplace_back(stage); };
  o.before_forward = [&](const PlannedRun& p) {
    planned.push_back(p);
    throw Error("too large");
  };
  EXPECT_THROW(pipeline_->run(kText, o), Error);
  ASSERT_EQ(planned.size(), 2u);
  EXPECT_EQ(planned[1].kept, KeptAttention::QueriesAndKeys);
  EXPECT_FALSE(planned[1].lenses);
  EXPECT_TRUE(stages.empty());  // the forward reports its first block of maps: it never began
}

// A text run once, analysed again with other settings (what the explorer does when the settings
// change and the text does not): the analysis a run with those settings gives, the forward not
// run; a long text's too (separators and pairs from a lens made from its maps made again).
TEST_F(TextPipelineTest, ARunIsAnalysedAgainWithOtherSettings) {
  const auto expect_same = [](const TextAnalysis& a, const TextAnalysis& b) {
    ASSERT_EQ(a.heads.size(), b.heads.size());
    for (size_t k = 0; k < a.heads.size(); ++k) {
      EXPECT_EQ(a.heads[k].scale, b.heads[k].scale) << "head " << k;
      EXPECT_EQ(a.heads[k].pair_count, b.heads[k].pair_count) << "head " << k;
      EXPECT_EQ(a.heads[k].separators.positions, b.heads[k].separators.positions) << "head " << k;
    }
    EXPECT_EQ(a.segment_separators.positions, b.segment_separators.positions);
  };
  for (const bool long_text : {false, true}) {
    SCOPED_TRACE(long_text ? "a long text" : "every map kept");
    TextPipelineOptions o;
    if (long_text) o.long_texts = CapturePlan{.maps_up_to = 4};
    const TextPipelineResult first = pipeline_->run(kText, o);
    ASSERT_EQ(first.captures.attention.defined(), !long_text);
    o.settings.tau = 0.4;
    o.settings.include_special = false;
    o.settings.separators_from = SeparatorInput::Rollout;
    o.settings.pairs_from = PairInput::Cosine;
    const TextPipelineResult again = pipeline_->analyze(first.encoding, first.captures, o);
    EXPECT_EQ(again.analysis.settings.tau, 0.4);
    EXPECT_TRUE(again.captures.head_outputs.is_same(first.captures.head_outputs));
    expect_same(again.analysis, pipeline_->run(kText, o).analysis);
    o.settings.pairs_from = PairInput::Attention;  // a long text's maps made again whole, a head at a time
    expect_same(pipeline_->analyze(first.encoding, first.captures, o).analysis, pipeline_->run(kText, o).analysis);
  }
}

// A long text on words: its words' maps made again from its pieces' queries and keys, the analysis
// the text keeping its maps gets, a lens's pairs too; its progress says so.
TEST_F(TextPipelineTest, ALongTextOnWordsIsAnalysedAsWithItsMaps) {
  const std::string text = "the dogs sat on the mats.";  // "dog ##s", "mat ##s"
  TextPipelineOptions o;
  o.settings.words = true;
  o.settings.separators_from = SeparatorInput::Rollout;
  const TextPipelineResult maps = pipeline_->run(text, o);
  o.long_texts = CapturePlan{.maps_up_to = 4};
  std::vector<std::string> stages;
  o.progress = [&](std::string_view stage, double) { stages.emplace_back(stage); };
  const TextPipelineResult words = pipeline_->run(text, o);
  ASSERT_FALSE(words.captures.attention.defined());
  ASSERT_EQ(words.encoding.size(), maps.encoding.size());
  const std::shared_ptr<const Checkpoint> checkpoint = pipeline_->checkpoint();
  EXPECT_LT(words.encoding.size(), checkpoint->encode(text, checkpoint->default_max_length()).size());
  EXPECT_NE(std::find(stages.begin(), stages.end(), "words"), stages.end());
  for (const PairInput pairs : {PairInput::Similarity, PairInput::Attention}) {
    o.settings.pairs_from = pairs;
    const TextAnalysis a = pipeline_->analyze(words.encoding, words.captures, o).analysis;
    const TextAnalysis e = pipeline_->analyze(maps.encoding, maps.captures, o).analysis;
    ASSERT_EQ(a.heads.size(), e.heads.size());
    for (size_t k = 0; k < a.heads.size(); ++k) {
      EXPECT_EQ(a.heads[k].pair_count, e.heads[k].pair_count) << "head " << k;
      EXPECT_EQ(a.heads[k].separators.positions, e.heads[k].separators.positions) << "head " << k;
    }
  }
}

// Next tokens: none for an encoder (not asked of it); for a real decoder, those next_tokens gives
// for the same text with its last layer run complete (the pipeline runs it at the last token
// alone), on pieces and on words alike.
TEST_F(TextPipelineTest, NextTokensOnlyFromADecoderAsTheModelGivesThem) {
  TextPipelineOptions o;
  o.next_tokens = 5;
  EXPECT_TRUE(pipeline_->run(kText, o).next.empty());
  const auto file = test::real_model_file("models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf");
  if (!std::filesystem::exists(file)) return;
  TextPipeline decoder(file.string(), test::test_device());
  const auto checkpoint = decoder.checkpoint();
  const TextRun run = checkpoint->run(kText, checkpoint->default_max_length());
  const std::vector<NextToken> expected = next_tokens(checkpoint->model(), run.captures, 5);
  for (const bool words : {false, true}) {
    o.settings.words = words;
    const std::vector<NextToken> next = decoder.run(kText, o).next;
    ASSERT_EQ(next.size(), 5u);
    for (size_t k = 0; k < next.size(); ++k) {
      EXPECT_EQ(next[k].id, expected[k].id) << k;
      EXPECT_NEAR(next[k].probability, expected[k].probability, 1e-6) << k;
    }
  }
}

TEST_F(TextPipelineTest, ATextWithNoWordPiecesIsOneClearError) {
  try {
    pipeline_->run(" \t\n ", {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "the text has no word pieces (only white space or control characters)");
  }
  EXPECT_NO_THROW(pipeline_->run("[MASK]", {}));  // a special token typed in the text is a piece of it
  TextPipelineOptions o;
  o.max_length = 1000;  // beyond the model's 16 positions
  EXPECT_THROW(pipeline_->run(kText, o), Error);
}

TEST_F(TextPipelineTest, ARunIsAbandonedWhenKeepGoingSaysNo) {
  // A run allowed k checks is abandoned at check k + 1, in the forward or between the analysis's
  // stages, until k covers every check a whole run makes.
  int checks_of_a_whole_run = 0;
  TextPipelineOptions counting;
  counting.keep_going = [&] { return ++checks_of_a_whole_run > 0; };
  pipeline_->run(kText, counting);
  // The analysis asks too, not only the forward.
  int checks_of_the_forward = 0;
  const auto checkpoint = pipeline_->checkpoint();
  checkpoint->run(
      {checkpoint->encode(kText, checkpoint->default_max_length())},
      {.last_layer = LastLayer::HeadOutputsOnly, .keep_going = [&] { return ++checks_of_the_forward > 0; }});
  ASSERT_GT(checks_of_the_forward, 0);
  ASSERT_GT(checks_of_a_whole_run, checks_of_the_forward + 1);
  for (int allowed = 0; allowed < checks_of_a_whole_run; ++allowed) {
    int asked = 0;
    TextPipelineOptions o;
    o.keep_going = [&] { return asked++ < allowed; };
    EXPECT_THROW(pipeline_->run(kText, o), Cancelled) << allowed << " checks allowed";
  }
  int asked = 0;
  TextPipelineOptions o;
  o.keep_going = [&] { return asked++ < checks_of_a_whole_run; };
  EXPECT_NO_THROW(pipeline_->run(kText, o));
}

// SmolLM2 opened once, for a pipeline whose runs continue and one that runs each from scratch.
struct TypedAndFresh {
  std::string file = test::real_model_file("models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf").string();
  TextPipeline typed{file, test::test_device()};
  TextPipeline fresh{typed.checkpoint(), file};
};

// A decoder's text typed on at its end, its runs continuing from the last (the explorer's): the
// tokens both share are taken from the run before, and what a run gives is what a pipeline without
// a run before gives, on pieces and on words, with its next tokens. A new pipeline's first run and
// an encoder's runs continue nothing.
TEST(TextPipelineContinues, ADecodersTextTypedOnAtItsEnd) {
  {
    TypedAndFresh pipelines;
    const std::string& file = pipelines.file;
    TextPipeline &typed = pipelines.typed, &fresh = pipelines.fresh;
    TextPipelineOptions o;
    o.continues = true;
    o.next_tokens = 3;
    std::string text = "The cat sat on the mat, and the dog watched it from the door.";
    EXPECT_EQ(typed.run(text, o).tokens_continued, 0) << "nothing before";
    for (const bool words : {false, true}) {
      o.settings.words = words;
      const size_t before = typed.checkpoint()->encode(text, 128).size();
      text += words ? " Then it slept." : " The dog sat.";
      const TextPipelineResult r = typed.run(text, o);
      TextPipelineOptions from_scratch = o;
      from_scratch.continues = false;
      const TextPipelineResult expected = fresh.run(text, from_scratch);
      EXPECT_GT(r.tokens_continued, static_cast<int64_t>(before) - 4) << "the tokens typed before";
      EXPECT_TRUE(at::equal(r.captures.attention, expected.captures.attention));
      EXPECT_TRUE(at::equal(r.captures.head_outputs, expected.captures.head_outputs));
      ASSERT_EQ(r.analysis.heads.size(), expected.analysis.heads.size());
      for (size_t k = 0; k < r.analysis.heads.size(); ++k)
        EXPECT_EQ(r.analysis.heads[k].pairs.bits(), expected.analysis.heads[k].pairs.bits()) << "head " << k;
      ASSERT_EQ(r.next.size(), expected.next.size());
      for (size_t k = 0; k < r.next.size(); ++k) EXPECT_EQ(r.next[k].id, expected.next[k].id);
    }
    o.settings.words = false;
    // With a lens shown: the run before's queries and the value Gram matrices of its first 128
    // tokens taken too (model/transformer.h: ForwardPrefix), the lenses' captures and the
    // norm-based maps' pairs a forward's from scratch.
    TextPipelineOptions lensed = o;
    lensed.lens_captures = true;
    lensed.settings.pairs_from = PairInput::Norm;
    lensed.max_length = 256;
    std::string lens_text = text;
    for (int k = 0; k < 6; ++k) lens_text += " " + text;
    ASSERT_GT(typed.run(lens_text, lensed).encoding.size(), 140u);
    const std::string purred = lens_text + " It purred.";
    const TextPipelineResult l = typed.run(purred, lensed);
    lensed.continues = false;
    const TextPipelineResult l_expected = fresh.run(purred, lensed);
    EXPECT_GT(l.tokens_continued, 140);
    const TextCaptures &c = l.captures, &e = l_expected.captures;
    for (const auto& [a, b] : {std::pair{c.queries, e.queries},
                               {c.keys, e.keys},
                               {c.value_norms, e.value_norms},
                               {c.value_gram, e.value_gram},
                               {c.attention, e.attention}})
      EXPECT_TRUE(a.defined() && at::equal(a, b));
    ASSERT_EQ(l.analysis.heads.size(), l_expected.analysis.heads.size());
    for (size_t k = 0; k < l.analysis.heads.size(); ++k)
      EXPECT_EQ(l.analysis.heads[k].pairs.bits(), l_expected.analysis.heads[k].pairs.bits()) << "head " << k;
    EXPECT_EQ(TextPipeline(typed.checkpoint(), file).run(text, o).tokens_continued, 0) << "another pipeline";
    // A few hundred tokens, a next token appended: its maps' rows before taken from the last run.
    for (int k = 0; k < 4; ++k) text += " " + text;
    o.max_length = 400;
    typed.run(text, o);
    const TextPipelineResult appended = typed.run(text + " The", o);
    o.continues = false;
    const TextPipelineResult expected = fresh.run(text + " The", o);
    EXPECT_GT(appended.tokens_continued, 300);
    EXPECT_TRUE(at::equal(appended.captures.attention, expected.captures.attention));
    EXPECT_TRUE(at::equal(appended.captures.head_outputs, expected.captures.head_outputs));
    EXPECT_EQ(appended.next.front().id, expected.next.front().id);
  }
  test::TempDir dir;
  test::write_tiny_bert(dir.path(), {});
  TextPipeline encoder(dir.path().string(), test::test_device());
  TextPipelineOptions o;
  o.continues = true;
  encoder.run(kText, o);
  const TextPipelineResult r = encoder.run(kText, o);
  EXPECT_EQ(r.tokens_continued, 0);
  EXPECT_FALSE(r.captures.hidden_states.defined()) << "an encoder keeps no layer's input for it";
}

// A run abandoned in its analysis (the explorer's, by the next key) is not the one the next run
// continues from: that one is the last run analysed, whose captures the explorer shows anyway, so
// that no run holds a third run's captures beside them and its own.
TEST(TextPipelineContinues, ARunAbandonedInItsAnalysisIsNotContinuedFrom) {
  TypedAndFresh pipelines;
  TextPipeline& typed = pipelines.typed;
  TextPipelineOptions o;
  o.continues = true;
  const std::string text = "The cat sat on the mat, and the dog watched it from the door.";
  const std::string longer = text + " Then it slept by the fire until the morning came.";
  const auto first = static_cast<int64_t>(typed.run(text, o).encoding.size());
  int checks = 0;  // a whole run's, continued from `text`: the last is in its analysis
  TextPipelineOptions counted = o;
  counted.keep_going = [&] { return ++checks > 0; };
  const TextPipelineResult whole = typed.run(longer, counted);
  ASSERT_GT(whole.tokens_continued, first - 4);
  TextPipelineOptions analysed_only = o;
  int analysis_checks = 0;
  analysed_only.keep_going = [&] { return ++analysis_checks > 0; };
  typed.analyze(whole.encoding, whole.captures, analysed_only);
  ASSERT_GT(analysis_checks, 0) << "the analysis looks at keep_going";
  typed.run(text, o);  // the last run `text` again, as at the start
  int looked = 0;
  TextPipelineOptions abandoned = o;
  abandoned.keep_going = [&] { return ++looked < checks; };
  EXPECT_THROW(typed.run(longer, abandoned), Cancelled);
  const TextPipelineResult next = typed.run(longer + " It woke.", o);
  EXPECT_GT(next.tokens_continued, first - 4);
  EXPECT_LE(next.tokens_continued, first) << "continued from the run abandoned";
  const TextPipelineResult expected = pipelines.fresh.run(longer + " It woke.", {});
  EXPECT_TRUE(at::equal(next.captures.attention, expected.captures.attention));
}

// Two analyses of a long text: every head's scale, pairs (its mask made again where not kept),
// statistics and separators.
void expect_same_long_analysis(const TextAnalysis& a, const TextAnalysis& b) {
  ASSERT_EQ(a.heads.size(), b.heads.size());
  for (int64_t l = 0; l < a.num_layers; ++l)
    for (int64_t h = 0; h < a.num_heads; ++h) {
      const HeadAnalysis &x = a.head(l, h), &y = b.head(l, h);
      EXPECT_EQ(x.scale, y.scale) << l << "." << h;
      EXPECT_EQ(x.pair_count, y.pair_count) << l << "." << h;
      EXPECT_EQ(a.pair_mask(l, h).bits(), b.pair_mask(l, h).bits()) << l << "." << h;
      EXPECT_EQ(x.stats.distance_histogram, y.stats.distance_histogram) << l << "." << h;
      EXPECT_EQ(x.stats.anchor_index, y.stats.anchor_index) << l << "." << h;
      EXPECT_EQ(x.stats.same_sentence_share, y.stats.same_sentence_share) << l << "." << h;
      EXPECT_EQ(x.separators.column_share, y.separators.column_share) << l << "." << h;
    }
  EXPECT_TRUE(at::equal(a.similarity.norms, b.similarity.norms));
}

// The same for a long text (its maps not kept), in blocks of 32 rows: typed on at its end, the
// blocks from the last run's last block on alone are made where whoever reads them can take them
// from there (TextPipelineOptions::blocks_resume), every block otherwise, and the analysis takes
// its pairs among the earlier tokens from the run before (analysis/pairs_before.h, a checkpoint
// every 64 rows); the captures and analysis those of a pipeline without a run before either way,
// after an edit near the start, and after one in the middle (pairs taken up to the checkpoint
// before it, and the blocks made from there on alone: the forward keeps its column sums there).
TEST(TextPipelineContinues, ADecodersLongTextTypedOnAtItsEnd) {
  TypedAndFresh pipelines;
  TextPipeline &typed = pipelines.typed, &fresh = pipelines.fresh;
  TextPipelineOptions o;
  o.continues = true;
  o.long_texts = CapturePlan{.maps_up_to = 4};
  o.block_rows = 32;
  o.max_length = 256;
  o.pairs_before_step = 64;
  int64_t first_row = -1, resumed_at = -1, kept = 0;
  o.attention_blocks = [&](int64_t layer, const AttentionBlock& block) {
    if (layer == 0 && first_row < 0) first_row = block.rows.first;
  };
  std::vector<int64_t> kept_rows;
  o.forward_kept = [&](const std::vector<int64_t>& rows) {
    ++kept;
    kept_rows = rows;
  };
  std::string text = "The cat sat on the mat, and the dog watched it from the door.";
  for (int k = 0; k < 3; ++k) text += " " + text;
  for (const bool resumes : {false, true}) {
    SCOPED_TRACE(resumes ? "blocks taken from the last one on" : "every block made");
    o.blocks_resume = [&](int64_t tokens, int64_t row) {
      resumed_at = row;
      return resumes && tokens > row;
    };
    const auto tokens_before = static_cast<int64_t>(typed.run(text, o).encoding.size());
    text += resumes ? " It purred." : " The dog sat.";
    first_row = -1;
    const TextPipelineResult r = typed.run(text, o);
    EXPECT_GT(resumed_at, 0);
    EXPECT_EQ(first_row, resumes ? resumed_at : 0);
    EXPECT_EQ(r.blocks_from, first_row);
    EXPECT_GT(r.tokens_continued, resumed_at);
    TextPipelineOptions from_scratch = o;
    from_scratch.continues = false;
    const TextPipelineResult expected = fresh.run(text, from_scratch);
    const TextCaptures &c = r.captures, &e = expected.captures;
    ASSERT_FALSE(c.attention.defined()) << "a long text's";
    for (const auto& [a, b] : {std::pair{c.column_sums, e.column_sums},
                               {c.head_outputs, e.head_outputs},
                               {c.queries, e.queries},
                               {c.keys, e.keys}})
      EXPECT_TRUE(a.defined() && at::equal(a, b));
    expect_same_long_analysis(r.analysis, expected.analysis);
    // Its pairs among the tokens before the last 64-row step taken from the run before.
    ASSERT_TRUE(r.analysis.pairs_before);
    EXPECT_GT(pairs_before_row(tokens_before), 0);
    EXPECT_EQ(r.analysis.pairs_before->resumed_from, pairs_before_row(tokens_before));
    EXPECT_GT(r.analysis.pairs_before->heads_resumed, 0);
  }
  EXPECT_EQ(kept, 4) << "each run's forward";
  // An edit before that row: every pair found again.
  o.blocks_resume = {};  // it read the loop's flag
  const std::string at_start = "A" + text.substr(3);
  const TextPipelineResult edited = typed.run(at_start, o);
  ASSERT_TRUE(edited.analysis.pairs_before);
  EXPECT_EQ(edited.analysis.pairs_before->resumed_from, 0);
  // A word in the middle: pairs taken up to the last checkpoint before its first token, and the
  // blocks made from there on.
  const auto edited_tokens = static_cast<int64_t>(edited.encoding.size());
  ASSERT_GE(kept_rows.size(), 2u);
  EXPECT_EQ(kept_rows.front(), 64) << "every 64 rows";
  EXPECT_EQ(kept_rows.back(), row_blocks(edited_tokens, 32).back().first) << "and the last block's first";
  std::string in_middle = at_start;
  in_middle.replace(in_middle.find(" dog ", in_middle.size() / 2), 5, " cow ");
  o.blocks_resume = [&](int64_t, int64_t row) {
    resumed_at = row;
    return true;
  };
  first_row = -1;
  const TextPipelineResult middle = typed.run(in_middle, o);
  const std::vector<int64_t> ids = edited.encoding.ids(), middle_ids = middle.encoding.ids();
  const int64_t differs = std::mismatch(ids.begin(), ids.end(), middle_ids.begin()).first - ids.begin();
  ASSERT_GE(differs, 64);
  ASSERT_LT(differs / 64 * 64, pairs_before_row(static_cast<int64_t>(middle_ids.size())))
      << "before the last checkpoint";
  ASSERT_TRUE(middle.analysis.pairs_before);
  EXPECT_EQ(middle.analysis.pairs_before->resumed_from, differs / 64 * 64);
  EXPECT_GT(middle.analysis.pairs_before->heads_resumed, 0);
  EXPECT_EQ(resumed_at, differs / 64 * 64);
  EXPECT_EQ(middle.blocks_from, resumed_at);
  EXPECT_EQ(first_row, resumed_at);
  o.continues = false;
  expect_same_long_analysis(edited.analysis, fresh.run(at_start, o).analysis);
  const TextPipelineResult middle_fresh = fresh.run(in_middle, o);
  EXPECT_TRUE(at::equal(middle.captures.column_sums, middle_fresh.captures.column_sums));
  EXPECT_TRUE(at::equal(middle.captures.head_outputs, middle_fresh.captures.head_outputs));
  expect_same_long_analysis(middle.analysis, middle_fresh.analysis);
}

TEST(NeedsLensCaptures, WhenTheAnalysisOrSomethingShownReadsThem) {
  AnalysisSettings s;
  EXPECT_FALSE(needs_lens_captures(s));
  EXPECT_TRUE(needs_lens_captures(s, {.norm = true}));
  EXPECT_TRUE(needs_lens_captures(s, {.rollout_of_norm = true}));
  EXPECT_TRUE(needs_lens_captures(s, {.query_key = true}));
  s.separators_from = SeparatorInput::Rollout;  // rollout of the mean attention needs none
  EXPECT_FALSE(needs_lens_captures(s));
  s.separators_from = SeparatorInput::Norm;
  EXPECT_TRUE(needs_lens_captures(s));
  s = {};
  s.pairs_from = PairInput::Norm;
  EXPECT_TRUE(needs_lens_captures(s));
  s.pairs_from = PairInput::Attention;
  EXPECT_FALSE(needs_lens_captures(s));
}

}  // namespace
}  // namespace attnscope
