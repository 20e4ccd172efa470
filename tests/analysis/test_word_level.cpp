// Word-level maps (analysis/word_level.h): pieces grouped into words by hand-made encodings of
// each vocabulary's marks, maps carried over by hand, a text without split words unchanged, and
// MiniLM's word maps against tools/make_lens_golden.py (the reference tokenizer's word_ids()), and
// a long text's words (maps made again from its pieces') equal to those of the text with its maps.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "analysis/text_analysis.h"
#include "analysis/word_level.h"
#include "base/error.h"
#include "model/attention_rows.h"
#include "support/long_text_views.h"
#include "support/minilm.h"
#include "support/nested_tensor.h"
#include "support/paths.h"

namespace attnscope {
namespace {

Token special(int32_t id, const std::string& text) { return Token{id, text, 0, 0, true}; }
Token piece(int32_t id, const std::string& text, uint32_t begin, uint32_t end) {
  return Token{id, text, begin, end, false};
}

TEST(WordLevel, WordPieceContinuationsJoinTheirWord) {
  // "playing ball." -> [CLS] play ##ing ball . [SEP]
  const Encoding e{{special(1, "[CLS]"), piece(5, "play", 0, 4), piece(6, "##ing", 4, 7), piece(7, "ball", 8, 12),
                    piece(8, ".", 12, 13), special(2, "[SEP]")}};
  const WordGroups g = group_words(e);
  ASSERT_EQ(g.words.size(), 5u);
  EXPECT_EQ(g.words.tokens[1].text, "playing");
  EXPECT_EQ(g.words.tokens[1].begin, 0u);
  EXPECT_EQ(g.words.tokens[1].end, 7u);
  EXPECT_EQ(g.words.tokens[3].text, ".");  // punctuation is its own word, touching bytes or not
  EXPECT_TRUE(g.words.tokens[4].special);
  EXPECT_EQ(g.word_of_piece, (std::vector<int>{0, 1, 1, 2, 3, 4}));
}

TEST(WordLevel, WordStartMarksOfBpeAndSentencePiece) {
  // byte-level BPE "<s> Play ing Ġball </s>" and SentencePiece "▁play ing ▁ball"
  const Encoding bpe{{special(0, "<s>"), piece(5, "Play", 0, 4), piece(6, "ing", 4, 7),
                      piece(7,
                            "\xc4\xa0"
                            "ball",
                            7, 12),
                      special(2, "</s>")}};
  EXPECT_EQ(group_words(bpe).word_of_piece, (std::vector<int>{0, 1, 1, 2, 3}));
  const Encoding sp{{piece(5, "\xe2\x96\x81play", 0, 4), piece(6, "ing", 4, 7),
                     piece(7,
                           "\xe2\x96\x81"
                           "ball",
                           7, 12)}};
  EXPECT_EQ(group_words(sp).word_of_piece, (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(group_words(sp).words.tokens[0].text, "playing");
}

TEST(WordLevel, MapsOverWordsByHand) {
  // Three pieces, the last two one word. A (one layer, one head) = [[.5 .3 .2] [.1 .6 .3] [.2 .2 .6]]:
  // W_00 = .5, W_01 = .3 + .2 = .5; W_10 = (.1 + .2) / 2 = .15, W_11 = (.9 + .8) / 2 = .85
  const Encoding e{{piece(5, "play", 0, 4), piece(6, "##ing", 4, 7), piece(7, "##s", 7, 8)}};
  WordGroups g = group_words(Encoding{{piece(1, "go", 0, 2), piece(5, "play", 3, 7), piece(6, "##ing", 7, 10)}});
  TextCaptures c;
  c.num_layers = c.num_heads = 1;
  c.length = 3;
  c.attention = at::tensor({0.5f, 0.3f, 0.2f, 0.1f, 0.6f, 0.3f, 0.2f, 0.2f, 0.6f}).reshape({1, 1, 3, 3});
  c.head_outputs = at::tensor({1.0f, 0.0f, 2.0f, 4.0f, 0.0f, 2.0f}).reshape({1, 1, 3, 2});
  const TextCaptures w = word_captures(c, g);
  EXPECT_TRUE(at::allclose(w.attention, at::tensor({0.5f, 0.5f, 0.15f, 0.85f}).reshape({1, 1, 2, 2})));
  EXPECT_TRUE(at::allclose(w.head_outputs, at::tensor({1.0f, 0.0f, 1.0f, 3.0f}).reshape({1, 1, 2, 2})));
  EXPECT_EQ(w.length, 2);
  EXPECT_EQ(group_words(e).words.size(), 1u);
}

TEST(WordLevel, ATextWithoutSplitWordsKeepsItsMaps) {
  const TextRun run = test::minilm_checkpoint().run("The cat sat on the mat.", 128);
  const TextRun words = to_words(run);
  ASSERT_EQ(words.encoding.size(), run.encoding.size());
  EXPECT_TRUE(at::allclose(words.captures.attention, run.captures.attention, 1e-6, 1e-7));
  EXPECT_TRUE(at::allclose(words.captures.head_outputs, run.captures.head_outputs, 1e-6, 1e-7));
  AnalysisSettings settings;
  settings.words = true;
  const TextAnalysis a = analyze_text(words.encoding, words.captures, settings),
                     b = analyze_text(run.encoding, run.captures, {});
  for (size_t k = 0; k < a.heads.size(); ++k) EXPECT_EQ(a.heads[k].stats.count, b.heads[k].stats.count);
}

TEST(WordLevel, MatchTheReferenceOnMiniLM) {
  for (const auto& c : test::golden("minilm_lenses.json")["cases"]) {
    const TextRun words = to_words(test::minilm_checkpoint().run(c["text"].get<std::string>(), 128));
    const std::vector<int> sizes = c["words"].get<std::vector<int>>();
    ASSERT_EQ(words.encoding.size(), sizes.size()) << c["text"];
    const at::Tensor attention = test::nested_tensor(c["word_attention"]);
    EXPECT_LT((words.captures.attention - attention).abs().max().item<double>(), 1e-4);
    EXPECT_TRUE(at::allclose(words.captures.attention.sum(-1), at::ones({6, 12, static_cast<int64_t>(sizes.size())}),
                             1e-5, 1e-5));
    const at::Tensor sums = test::nested_tensor(c["word_outputs_sum"]);
    EXPECT_LT((words.captures.head_outputs.sum({2, 3}) - sums).abs().max().item<double>(), 1e-3);
  }
}

double largest_gap(const at::Tensor& a, const at::Tensor& b) { return (a - b.cpu()).abs().max().item<double>(); }

// The same 512 tokens of MiniLM carried over to words from their kept maps and, as a long text, from
// their queries and keys: the same head outputs to the bit, the word maps' column sums and any
// block of their rows within float32 rounding, and the same analysis.
TEST(WordLevel, ALongTextsWordsAreThoseOfItsKeptMaps) {
  const test::BothPaths& b = test::both_paths();
  const Transformer& model = test::minilm_checkpoint().model();
  const WordGroups groups = group_words(b.encoding);
  ASSERT_LT(groups.words.size() + 20, b.encoding.size());  // words of several pieces, and not a few
  const TextCaptures whole = word_captures(b.maps.captures, groups);
  std::vector<double> done;
  const WordMapsMadeAgain maps{[&](const TextCaptures& c) { return recomputed_attention_rows(model, c); },
                               {},
                               [&](std::string_view stage, double fraction) {
                                 EXPECT_EQ(stage, "words");
                                 done.push_back(fraction);
                               }};
  const TextCaptures words =
      long_text_word_captures(std::make_shared<const TextCaptures>(b.long_text.captures), groups, maps);
  EXPECT_EQ(done.size(), 6u);
  EXPECT_FALSE(words.attention.defined());
  ASSERT_TRUE(words.remakes_maps());
  EXPECT_EQ(words.length, static_cast<int64_t>(groups.words.size()));
  EXPECT_TRUE(at::equal(words.head_outputs, whole.head_outputs));
  // sums of up to 512 rows (hundreds for a column most rows attend to): float32 rounding, relative
  EXPECT_TRUE(at::allclose(words.column_sums, whole.attention.sum(-2), 1e-5, 1e-6))
      << largest_gap(words.column_sums, whole.attention.sum(-2));
  const AttentionRows rows = recomputed_attention_rows(model, words);
  for (const auto& [layer, head] : {std::pair<int64_t, int64_t>{0, -1}, {3, 7}, {5, -1}})
    for (const RowSpan span : {RowSpan{0, 9}, RowSpan{101, 57}, RowSpan{words.length - 5, 5}}) {
      const at::Tensor expected = whole.attention[layer].narrow(0, std::max<int64_t>(head, 0), head < 0 ? 12 : 1);
      EXPECT_LT(largest_gap(rows(layer, head, span), expected.narrow(1, span.first, span.count)), 1e-6)
          << "layer " << layer << ", head " << head << ", rows from " << span.first;
    }
  AnalysisSettings settings;
  settings.words = true;
  const TextAnalysis a = analyze_text(groups.words, words, settings), e = analyze_text(groups.words, whole, settings);
  ASSERT_EQ(a.heads.size(), e.heads.size());
  for (size_t k = 0; k < a.heads.size(); ++k) {
    EXPECT_EQ(a.heads[k].scale, e.heads[k].scale) << "head " << k;
    EXPECT_EQ(a.heads[k].pair_count, e.heads[k].pair_count) << "head " << k;
    EXPECT_EQ(a.heads[k].separators.positions, e.heads[k].separators.positions) << "head " << k;
  }
}

TEST(WordLevel, ALongTextsWordsNeedItsMapsMadeAgain) {
  const test::BothPaths& b = test::both_paths();
  EXPECT_THROW(to_words({b.encoding, b.long_text.captures}), Error);
}

}  // namespace
}  // namespace attnscope
