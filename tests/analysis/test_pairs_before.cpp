// A long text's scan for pairs resumed from the scan of its text before text was typed at its end
// (analysis/pairs_before.h): each head's scale, counts, distances and degrees those of a scan
// from scratch, to the bit, whether the head takes its earlier pairs or its scale moved and it is
// scanned whole; and what it leaves for the next scan that of a scan from scratch. On the real
// MiniLM's head outputs, whose leading rows stand for a decoder's unchanged tokens.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/high_similarity.h"
#include "analysis/text_analysis.h"
#include "base/error.h"
#include "model/transformer.h"
#include "support/minilm.h"
#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

void expect_same_pair_counts(const PairCounts& a, const PairCounts& b, const std::string& where) {
  EXPECT_EQ(std::vector<int64_t>({a.count, a.repeats, a.same_sentence, a.same_sentence_repeats, a.distance_sum}),
            std::vector<int64_t>({b.count, b.repeats, b.same_sentence, b.same_sentence_repeats, b.distance_sum}))
      << where;
  EXPECT_EQ(a.distance_histogram, b.distance_histogram) << where;
  EXPECT_EQ(a.degree, b.degree) << where;
}

// The scales and counts of every head; the masks where the resumed scan made one.
void expect_as_fresh(const std::vector<HeadHighSimilarity>& resumed, const std::vector<HeadHighSimilarity>& fresh) {
  ASSERT_EQ(resumed.size(), fresh.size());
  for (size_t k = 0; k < fresh.size(); ++k) {
    EXPECT_EQ(resumed[k].scale, fresh[k].scale) << "head " << k;
    expect_same_pair_counts(resumed[k].counts, fresh[k].counts, "head " + std::to_string(k));
    if (resumed[k].mask.tokens() != 0) EXPECT_EQ(resumed[k].mask.bits(), fresh[k].mask.bits()) << "head " << k;
  }
}

// Every checkpoint's heads, and the norms.
void expect_same_before(const PairsBefore& a, const PairsBefore& b) {
  ASSERT_EQ(a.at.size(), b.at.size());
  for (size_t c = 0; c < a.at.size(); ++c) {
    const std::vector<HeadPairsBefore>&x = a.at[c].heads, &y = b.at[c].heads;
    const std::string where = "before row " + std::to_string(a.at[c].row);
    EXPECT_EQ(a.at[c].row, b.at[c].row);
    ASSERT_EQ(x.size(), y.size());
    for (size_t k = 0; k < x.size(); ++k) {
      EXPECT_EQ(x[k].largest, y[k].largest) << where << ", head " << k;
      EXPECT_EQ(x[k].scale, y[k].scale) << where << ", head " << k;
      expect_same_pair_counts(x[k].counts, y[k].counts, where + ", head " + std::to_string(k));
    }
  }
  EXPECT_TRUE(at::equal(a.norms, b.norms));
}

TextFacts facts_up_to(const std::vector<int64_t>& ids, int64_t n, bool specials_take_part) {
  std::vector<int32_t> id32(ids.begin(), ids.begin() + n);
  std::vector<int> sentence;
  std::vector<bool> takes;
  for (int64_t i = 0; i < n; ++i) {
    sentence.push_back(static_cast<int>(i / 10));
    takes.push_back(specials_take_part || ids[static_cast<size_t>(i)] != 101);
  }
  return text_facts(id32, sentence, takes);
}

struct Scan {
  std::vector<HeadHighSimilarity> heads;
  PairsBefore before;
  at::Tensor norms;
};

// Checkpoints every 64 rows (pairs_before_rows), as a long text's every 1,024.
Scan scan_of(const at::Tensor& c, const TextFacts& facts, const PairsBefore* resume = nullptr, int64_t rows = 0) {
  Scan s;
  s.heads = high_similarity_in_blocks(c, facts, 0.3,
                                      {.rows = rows,
                                       .norms = &s.norms,
                                       .before = &s.before,
                                       .splits = pairs_before_rows(c.size(1), 64),
                                       .resume = resume});
  return s;
}

class PairsBeforeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const auto model = Transformer::load(test::minilm_dir(), test::test_device());
    std::vector<int64_t> ids{101};
    for (int64_t k = 1; k < 300; ++k) ids.push_back(2000 + (k % 37) * 113 % 5000);
    ids_ = new std::vector<int64_t>(ids);
    const at::Tensor o = text_head_outputs(model->forward({ids}), 0).to(at::kCPU, at::kFloat);
    outputs_ = new at::Tensor(o.reshape({o.size(0) * o.size(1), o.size(2), -1}).contiguous());
  }
  static void TearDownTestSuite() {
    delete ids_;
    delete outputs_;
  }
  // The first n tokens' head outputs, the same bits.
  static at::Tensor first(int64_t n) { return outputs_->narrow(1, 0, n).contiguous(); }
  static std::vector<int64_t>* ids_;
  static at::Tensor* outputs_;
};
std::vector<int64_t>* PairsBeforeTest::ids_ = nullptr;
at::Tensor* PairsBeforeTest::outputs_ = nullptr;

TEST_F(PairsBeforeTest, AScanResumedFromTheTextBeforeEqualsAScanFromScratch) {
  for (const bool specials : {true, false}) {
    for (const auto& [before, after] : std::vector<std::pair<int64_t, int64_t>>{{150, 230}, {150, 131}, {200, 201}}) {
      const std::string where = std::to_string(before) + " then " + std::to_string(after);
      // The text before, its tokens from the row counted apart on other than today's (a last
      // word typed on): nothing of those rows is taken.
      at::Tensor typed = first(before);
      const int64_t row = pairs_before_row(before);
      typed.narrow(1, row, before - row).mul_(0.5);
      const Scan was = scan_of(typed, facts_up_to(*ids_, before, specials));
      EXPECT_EQ(was.before.row(), row) << where;
      const TextFacts facts = facts_up_to(*ids_, after, specials);
      const Scan fresh = scan_of(first(after), facts), resumed = scan_of(first(after), facts, &was.before);
      int64_t pairs = 0;
      for (const auto& head : fresh.heads) pairs += head.counts.count;
      EXPECT_GT(pairs, 0) << where;
      expect_as_fresh(resumed.heads, fresh.heads);
      // The heads that took their earlier pairs make no mask (TextAnalysis::pair_mask makes it when asked).
      const auto took = std::count_if(resumed.heads.begin(), resumed.heads.end(),
                                      [](const HeadHighSimilarity& h) { return h.mask.tokens() == 0; });
      EXPECT_GT(took, 0) << where;
      EXPECT_TRUE(at::equal(resumed.norms, fresh.norms)) << where;
      expect_same_before(resumed.before, fresh.before);
      // Blocks of a few rows: a rest of fewer than four rows made from more.
      expect_as_fresh(scan_of(first(after), facts, &was.before, 5).heads, fresh.heads);
    }
  }
}

TEST_F(PairsBeforeTest, AScanCountingItsEarlierPairsApartFindsWhatOneWithoutFinds) {
  const TextFacts facts = facts_up_to(*ids_, 250, true);
  const auto plain = high_similarity_in_blocks(first(250), facts, 0.3);
  const Scan split = scan_of(first(250), facts);
  ASSERT_EQ(split.heads.size(), plain.size());
  for (size_t k = 0; k < plain.size(); ++k) EXPECT_EQ(split.heads[k].mask.bits(), plain[k].mask.bits());
  expect_as_fresh(split.heads, plain);
}

TEST_F(PairsBeforeTest, AHeadWhoseScaleMovesIsScannedWholeAndStillEqualsTheScanFromScratch) {
  const TextFacts facts = facts_up_to(*ids_, 220, true);
  const Scan was = scan_of(first(200), facts_up_to(*ids_, 200, true));
  // A later token whose head output is an earlier one's scaled so that their S_ij is 1.3 times the
  // head's largest before: each head's threshold rises, and some earlier pairs fall below it.
  at::Tensor c = first(220);
  for (int64_t k = 0; k < c.size(0); ++k) {
    const at::Tensor early = c[k][5];
    const double scale = was.before.at.back().heads[static_cast<size_t>(k)].scale;
    c[k][219].copy_(early * (1.3 * scale / early.dot(early).item<double>()));
  }
  const Scan fresh = scan_of(c, facts), resumed = scan_of(c, facts, &was.before);
  for (size_t k = 0; k < fresh.heads.size(); ++k) EXPECT_NE(fresh.heads[k].scale, was.before.at.back().heads[k].scale);
  expect_as_fresh(resumed.heads, fresh.heads);
  expect_same_before(resumed.before, fresh.before);
  for (const auto& head : resumed.heads) EXPECT_EQ(head.mask.tokens(), 220);  // scanned whole: masks made
}

TEST_F(PairsBeforeTest, ResumedTwiceEqualsAScanFromScratch) {
  const Scan one = scan_of(first(140), facts_up_to(*ids_, 140, true));
  const Scan two = scan_of(first(190), facts_up_to(*ids_, 190, true), &one.before);
  const TextFacts facts = facts_up_to(*ids_, 260, true);
  const Scan fresh = scan_of(first(260), facts), three = scan_of(first(260), facts, &two.before);
  expect_as_fresh(three.heads, fresh.heads);
  expect_same_before(three.before, fresh.before);
}

// An edit in the middle: the scan resumes from the last checkpoint before it (the ones before
// that taken too, or counted again where a head's scale moved), and equals a scan from scratch.
TEST_F(PairsBeforeTest, AnEditInTheMiddleResumesFromTheLastCheckpointBeforeIt) {
  const Scan was = scan_of(first(260), facts_up_to(*ids_, 260, true));
  ASSERT_EQ(was.before.at.size(), 4u);  // 64, 128, 192 and 256
  at::Tensor edited = first(240);
  edited.narrow(1, 150, 90).mul_(0.9);  // the tokens from 150 on changed: some heads' largest S_ij moves
  const TextFacts facts = facts_up_to(*ids_, 240, true);
  const Scan fresh = scan_of(edited, facts);
  for (const auto& [same, from] : std::vector<std::pair<int64_t, int64_t>>{{150, 128}, {127, 64}, {63, 0}}) {
    SCOPED_TRACE("the same up to token " + std::to_string(same));
    const PairsBefore cut = pairs_before_up_to(was.before, same);
    const Scan resumed = scan_of(edited, facts, &cut);
    EXPECT_EQ(resumed.before.resumed_from, from);
    expect_as_fresh(resumed.heads, fresh.heads);
    expect_same_before(resumed.before, fresh.before);
    EXPECT_TRUE(at::equal(resumed.norms, fresh.norms));
    const auto took = std::count_if(resumed.heads.begin(), resumed.heads.end(),
                                    [](const HeadHighSimilarity& h) { return h.mask.tokens() == 0; });
    EXPECT_EQ(took, resumed.before.heads_resumed);
    if (from > 0) EXPECT_GT(took, 0);
    if (from > 0) EXPECT_LT(took, static_cast<int64_t>(fresh.heads.size())) << "some heads' scales moved";
    // Blocks of 5 rows: those before the checkpoint made for the heads scanned whole alone.
    const Scan in_fives = scan_of(edited, facts, &cut, 5);
    expect_as_fresh(in_fives.heads, fresh.heads);
    expect_same_before(in_fives.before, fresh.before);
  }
}

TEST(PairsBeforeRows, EveryStepAtMostEightTimesAndTheLastMultipleOf64) {
  using Rows = std::vector<int64_t>;
  EXPECT_EQ(pairs_before_rows(0), Rows{});
  EXPECT_EQ(pairs_before_rows(64), Rows{});
  EXPECT_EQ(pairs_before_rows(65), Rows{64});
  EXPECT_EQ(pairs_before_rows(250, 64), (Rows{64, 128, 192}));
  EXPECT_EQ(pairs_before_rows(1000, 64), (Rows{128, 256, 384, 512, 640, 768, 896, 960}));
  EXPECT_EQ(pairs_before_rows(8192), (Rows{1024, 2048, 3072, 4096, 5120, 6144, 7168, 8128}));
  EXPECT_EQ(pairs_before_rows(8200), (Rows{1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192}));
  EXPECT_EQ(pairs_before_rows(32768), (Rows{4096, 8192, 12288, 16384, 20480, 24576, 28672, 32704}));
}

TEST_F(PairsBeforeTest, CutToTheCheckpointsBeforeARow) {
  const Scan was = scan_of(first(250), facts_up_to(*ids_, 250, true));
  const PairsBefore cut = pairs_before_up_to(was.before, 150);
  ASSERT_EQ(cut.at.size(), 2u);
  EXPECT_EQ(cut.row(), 128);
  EXPECT_TRUE(at::equal(cut.norms, was.before.norms.narrow(1, 0, 128)));
  EXPECT_EQ(cut.at[1].heads[3].counts.degree, was.before.at[1].heads[3].counts.degree);
  const PairsBefore none = pairs_before_up_to(was.before, 63);
  EXPECT_EQ(none.row(), 0);
  EXPECT_EQ(none.norms.size(1), 0);
}

TEST_F(PairsBeforeTest, WhatIsNotAScanOfTheseHeadsAndTokensIsRefused) {
  const Scan was = scan_of(first(200), facts_up_to(*ids_, 200, true));
  const TextFacts facts = facts_up_to(*ids_, 100, true);
  EXPECT_THROW(scan_of(first(100), facts, &was.before), Error);  // its row past these tokens
  const TextFacts more = facts_up_to(*ids_, 220, true);
  EXPECT_THROW(high_similarity_in_blocks(first(220), more, 0.4, {.resume = &was.before}), Error);  // no norms
  at::Tensor norms;
  EXPECT_THROW(high_similarity_in_blocks(first(220), more, 0.4, {.norms = &norms, .resume = &was.before}), Error);
  EXPECT_THROW(
      high_similarity_in_blocks(first(220).narrow(0, 0, 3), more, 0.3, {.norms = &norms, .resume = &was.before}),
      Error);
  EXPECT_THROW(
      high_similarity_in_blocks(first(220), more, 0.3, {.norms = &norms, .cosine = true, .resume = &was.before}),
      Error);
}

// The analysis takes the pairs of the analysis before only where its tokens before that one's row
// are the same bits: the same text again resumes (and finds what it found); a head output one
// float apart, another tau, special tokens left out, cosine's pairs do not.
TEST(PairsBeforeOfAnAnalysis, AreTakenOnlyWhereTheTokensBeforeAreTheSameBits) {
  const Checkpoint& minilm = test::minilm_checkpoint();
  std::string text;
  for (int k = 0; k < 30; ++k) text += "the cat sat on the mat " + std::to_string(k) + ". ";
  const Encoding encoding = minilm.encode(text, 256);
  ASSERT_GT(encoding.size(), 200u);
  const TextCaptures long_text =
      text_captures(minilm.model().forward({encoding.ids()}, {.kept = KeptAttention::QueriesAndKeys}), 0, true);
  const AnalysisRun keeps{.keeps_pairs_before = true};
  const TextAnalysis was = analyze_text(encoding, long_text, {}, keeps);
  ASSERT_TRUE(was.pairs_before);
  EXPECT_EQ(was.pairs_before->row(), pairs_before_row(was.length));
  EXPECT_FALSE(analyze_text(encoding, long_text, {}).pairs_before) << "not asked";
  const auto resumed_from = [&](const TextCaptures& c, const AnalysisSettings& settings) {
    AnalysisRun run = keeps;
    run.resume = &was;
    const TextAnalysis a = analyze_text(encoding, c, settings, run);
    return a.pairs_before ? a.pairs_before->resumed_from : -1;
  };
  const TextAnalysis again = analyze_text(encoding, long_text, {}, {.keeps_pairs_before = true, .resume = &was});
  EXPECT_EQ(again.pairs_before->resumed_from, 192);
  EXPECT_EQ(again.pairs_before->heads_resumed, static_cast<int64_t>(again.heads.size()));
  for (size_t k = 0; k < was.heads.size(); ++k) EXPECT_EQ(again.heads[k].stats.count, was.heads[k].stats.count);
  TextCaptures nudged = long_text;
  nudged.head_outputs = long_text.head_outputs.clone();
  float& one = nudged.head_outputs.data_ptr<float>()[3 * nudged.head_outputs.size(3)];  // layer 0, head 0, token 3
  one = std::nextafter(one, 1e9f);
  EXPECT_EQ(resumed_from(nudged, {}), 0);
  EXPECT_EQ(resumed_from(long_text, {.tau = 0.31}), 0);
  EXPECT_EQ(resumed_from(long_text, {.include_special = false}), 0);
  EXPECT_EQ(resumed_from(long_text, {.pairs_from = PairInput::Cosine}), -1) << "cosine's pairs are not counted apart";
}

// A word changed in the middle: the analysis takes the pairs up to the last checkpoint before the
// first token that differs (here the same head outputs throughout, as a decoder's before the edit).
TEST(PairsBeforeOfAnAnalysis, AfterAnEditInTheMiddleAreTakenUpToTheLastCheckpointBeforeIt) {
  const Checkpoint& minilm = test::minilm_checkpoint();
  std::string text;
  for (int k = 0; k < 30; ++k) text += "the cat sat on the mat " + std::to_string(k) + ". ";
  const Encoding encoding = minilm.encode(text, 256);
  const TextCaptures long_text =
      text_captures(minilm.model().forward({encoding.ids()}, {.kept = KeptAttention::QueriesAndKeys}), 0, true);
  const AnalysisRun keeps{.keeps_pairs_before = true, .pairs_before_step = 64};
  const TextAnalysis was = analyze_text(encoding, long_text, {}, keeps);
  ASSERT_EQ(was.pairs_before->at.size(), 3u);  // 64, 128 and 192
  std::string edited = text;
  edited.replace(edited.find("cat sat on the mat 17"), 3, "dog");
  const Encoding other = minilm.encode(edited, 256);
  ASSERT_EQ(other.size(), encoding.size());
  const std::vector<int64_t> ids = encoding.ids(), other_ids = other.ids();
  const auto differs = std::mismatch(ids.begin(), ids.end(), other_ids.begin()).first - ids.begin();
  ASSERT_GT(differs, 128);
  ASSERT_LT(differs, 192);
  AnalysisRun run = keeps;
  run.resume = &was;
  const TextAnalysis resumed = analyze_text(other, long_text, {}, run),
                     fresh = analyze_text(other, long_text, {}, keeps);
  EXPECT_EQ(resumed.pairs_before->resumed_from, 128);
  EXPECT_GT(resumed.pairs_before->heads_resumed, 0);
  for (size_t k = 0; k < fresh.heads.size(); ++k) {
    EXPECT_EQ(resumed.heads[k].stats.count, fresh.heads[k].stats.count) << k;
    EXPECT_EQ(resumed.heads[k].stats.distance_histogram, fresh.heads[k].stats.distance_histogram) << k;
    EXPECT_EQ(resumed.heads[k].stats.same_sentence_share, fresh.heads[k].stats.same_sentence_share) << k;
  }
}

}  // namespace
}  // namespace attnscope
