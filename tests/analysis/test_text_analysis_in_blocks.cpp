// A long text's analysis (no map and no S whole: the forward keeps queries, keys and column sums,
// the pairs are found block by block) equals the analysis of the same text with every map kept,
// forced on the real MiniLM at 128 and 512 tokens: separators, pairs of S or of its cosine (their
// masks, not kept, made again when asked, whole or some rows), statistics, pooled layers, norms, and the pairs listed
// for a head with their values, and its strongest (strongest_pairs.h) those of that list sorted.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/text_analysis.h"
#include "base/error.h"
#include "support/analysis_so_far.h"
#include "support/minilm.h"
#include "support/paths.h"
#include "support/strongest_pairs_check.h"

namespace attnscope {
namespace {

// More than 512 tokens of the default corpus's prose.
std::string example_text() {
  std::stringstream all;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() / "assets" / "corpus")) {
    std::ifstream in(entry.path());
    all << in.rdbuf() << "\n";
  }
  return all.str();
}

void expect_same(const TextAnalysis& blocks, const TextAnalysis& whole) {
  EXPECT_FALSE(blocks.similarity.similarity.defined());
  EXPECT_TRUE(at::equal(blocks.similarity.norms, whole.similarity.norms));
  ASSERT_EQ(blocks.heads.size(), whole.heads.size());
  int64_t pairs = 0;
  for (size_t k = 0; k < whole.heads.size(); ++k) {
    const HeadAnalysis &a = blocks.heads[k], &b = whole.heads[k];
    EXPECT_EQ(a.scale, b.scale) << "head " << k;
    // A long text's masks are not kept: made again when asked, the same bits.
    EXPECT_EQ(a.pairs.tokens(), 0) << "head " << k;
    EXPECT_EQ(a.pair_count, b.pair_count) << "head " << k;
    EXPECT_EQ(a.pair_count, b.pairs.count()) << "head " << k;
    const auto l = static_cast<int64_t>(k) / whole.num_heads, h = static_cast<int64_t>(k) % whole.num_heads;
    EXPECT_EQ(blocks.pair_mask(l, h).bits(), b.pairs.bits()) << "head " << k;
    EXPECT_EQ(a.separators.positions, b.separators.positions) << "head " << k;
    EXPECT_EQ(a.stats.count, b.stats.count) << "head " << k;
    EXPECT_EQ(a.stats.anchor_index, b.stats.anchor_index) << "head " << k;
    pairs += b.stats.count;
  }
  EXPECT_GT(pairs, 0);
  for (size_t l = 0; l < whole.layers.size(); ++l) {
    EXPECT_EQ(blocks.layers[l].distance_histogram, whole.layers[l].distance_histogram) << "layer " << l;
    EXPECT_EQ(blocks.layers[l].distinct_anchors, whole.layers[l].distinct_anchors) << "layer " << l;
    EXPECT_EQ(blocks.layers[l].separators.positions, whole.layers[l].separators.positions) << "layer " << l;
  }
  EXPECT_EQ(blocks.segment_separators.positions, whole.segment_separators.positions);
  EXPECT_EQ(blocks.facts.sentence, whole.facts.sentence);
  const int64_t last = whole.num_layers - 1;
  const auto listed = head_pairs(blocks, last, 0), expected = head_pairs(whole, last, 0);
  ASSERT_EQ(listed.size(), expected.size());
  for (size_t p = 0; p < listed.size(); ++p) {
    EXPECT_EQ(std::make_pair(listed[p].i, listed[p].j), std::make_pair(expected[p].i, expected[p].j));
    EXPECT_NEAR(listed[p].value, expected[p].value, 1e-6);
  }
  // A mask the caller has made already lists the same first pairs, with the same values.
  const PairMask made = blocks.pair_mask(last, 0);
  const auto from_made = head_pairs(blocks, last, 0, 5, &made), first = head_pairs(blocks, last, 0, 5);
  ASSERT_EQ(from_made.size(), std::min<size_t>(5, expected.size()));
  for (size_t p = 0; p < from_made.size(); ++p)
    EXPECT_TRUE(from_made[p].i == first[p].i && from_made[p].j == first[p].j && from_made[p].value == first[p].value);
  EXPECT_TRUE(at::allclose(blocks.summed_similarity(last), whole.summed_similarity(last), 1e-5, 1e-5));
  test::expect_strongest_pairs_are_the_sorted_list(blocks, last, 0);
  test::expect_strongest_pairs_are_the_sorted_list(whole, last, 0);
}

// Some rows of a head's mask: made again from the head outputs, or read from the kept mask, they
// are the whole mask's rows, the other rows empty (spans of fewer rows than a product's fewest too).
void expect_same_rows(const TextAnalysis& blocks, const TextAnalysis& whole) {
  const int64_t n = whole.length, last = whole.num_layers - 1;
  for (const RowSpan span : {RowSpan{0, 1}, RowSpan{5, 3}, RowSpan{n - 3, 3}, RowSpan{n - 1, 1}, RowSpan{n / 2, 29}})
    for (const int64_t h : {int64_t{0}, whole.num_heads - 1}) {
      const PairMask made = blocks.pair_mask(last, h, span), read = whole.pair_mask(last, h, span);
      EXPECT_EQ(made.bits(), read.bits()) << "rows " << span.first << " +" << span.count;
      int64_t in_rows = 0;
      whole.head(last, h).pairs.for_each(
          [&](int i, int) { in_rows += i >= span.first && i < span.first + span.count; });
      EXPECT_EQ(made.count(), in_rows) << "rows " << span.first << " +" << span.count;
    }
  EXPECT_THROW(blocks.pair_mask(last, 0, {n - 1, 2}), Error);
}

class TextAnalysisInBlocks : public ::testing::TestWithParam<size_t> {};

TEST_P(TextAnalysisInBlocks, EqualsTheAnalysisWithEveryMapKept) {
  const Checkpoint& minilm = test::minilm_checkpoint();
  const Encoding encoding = minilm.encode(example_text(), GetParam());
  ASSERT_EQ(encoding.size(), GetParam());
  const auto forward = [&](KeptAttention kept) {
    return text_captures(minilm.model().forward({encoding.ids()}, {.kept = kept}), 0, true);
  };
  const TextCaptures long_text = forward(KeptAttention::QueriesAndKeys), maps = forward(KeptAttention::Maps);
  // Pairs of S, and of its cosine (each head's norms taken in a pass of their own first).
  for (const PairInput input : {PairInput::Similarity, PairInput::Cosine})
    for (const bool specials : {true, false}) {
      SCOPED_TRACE(std::string(pair_input_name(input)) + (specials ? ", special tokens in" : ", out"));
      AnalysisSettings settings;
      settings.include_special = specials;
      settings.pairs_from = input;
      // What the scan hands on as it goes: a whole text's analysis, over at once, hands on nothing.
      std::vector<TextAnalysis> so_far, none;
      const TextAnalysis blocks = analyze_text(encoding, long_text, settings,
                                               {.so_far = [&](const TextAnalysis&a) { so_far.push_back(a); }}),
                         whole = analyze_text(encoding, maps, settings,
                                              {.so_far = [&](const TextAnalysis&a) { none.push_back(a); }});
      expect_same(blocks, whole);
      expect_same_rows(blocks, whole);
      test::expect_analyses_so_far(so_far, blocks);
      EXPECT_TRUE(none.empty());
    }
  // Kept when asked (a result file of every head's): the masks the whole path finds.
  const TextAnalysis kept = analyze_text(encoding, long_text, {}, {.long_pair_mask_bytes = kEveryPairMask});
  const TextAnalysis whole = analyze_text(encoding, maps, {});
  for (size_t k = 0; k < whole.heads.size(); ++k)
    EXPECT_EQ(kept.heads[k].pairs.bits(), whole.heads[k].pairs.bits()) << "head " << k;
  // Kept up to a budget (the explorer's): the heads that fit, in order; the others' masks made
  // again when asked, their counts kept.
  const uint64_t three =
      kept.heads[0].pairs.stored_bytes() + kept.heads[1].pairs.stored_bytes() + kept.heads[2].pairs.stored_bytes();
  const TextAnalysis budget = analyze_text(encoding, long_text, {}, {.long_pair_mask_bytes = three});
  for (size_t k = 0; k < whole.heads.size(); ++k) {
    EXPECT_EQ(budget.heads[k].pairs.tokens(), k < 3 ? whole.length : 0) << "head " << k;
    EXPECT_EQ(budget.heads[k].pair_count, whole.heads[k].pair_count) << "head " << k;
    const int64_t l = static_cast<int64_t>(k) / whole.num_heads, h = static_cast<int64_t>(k) % whole.num_heads;
    EXPECT_EQ(budget.pair_mask(l, h).bits(), whole.heads[k].pairs.bits()) << "head " << k;
  }
  // Pairs found before (a result file's), given with their masks or as counts alone: taken, and a
  // long text's masks dropped unless kept, as the scan's are; made again, the same bits.
  const auto found = [&](bool with_masks) {
    std::vector<FoundPairs> all;
    for (const HeadAnalysis& head : kept.heads)
      all.push_back({.scale = head.scale,
                     .mask = with_masks ? head.pairs : PairMask(),
                     .count = head.pair_count,
                     .stats = head.stats});
    return all;
  };
  const int64_t last = whole.num_layers - 1, n = whole.length;
  for (const bool with_masks : {true, false})
    for (const bool keep : {false, true}) {
      std::vector<FoundPairs> given = found(with_masks);
      const TextAnalysis taken =
          analyze_text(encoding, long_text, {}, {.found = &given, .long_pair_mask_bytes = keep ? kEveryPairMask : 0});
      for (size_t k = 0; k < whole.heads.size(); ++k) {
        EXPECT_EQ(taken.heads[k].pair_count, whole.heads[k].pair_count) << "head " << k;
        EXPECT_EQ(taken.heads[k].pairs.tokens(), with_masks && keep ? n : 0) << "head " << k;
      }
      EXPECT_EQ(taken.pair_mask(last, 1).bits(), whole.head(last, 1).pairs.bits());
    }
  std::vector<FoundPairs> counts_alone = found(false);
  EXPECT_THROW(analyze_text(encoding, maps, {}, {.found = &counts_alone}), Error);  // a short text's need their masks
  AnalysisSettings from_attention;
  from_attention.pairs_from = PairInput::Attention;
  // Without what makes its maps again (pipeline/long_text_lens_pairs.h), in one line.
  EXPECT_THROW(analyze_text(encoding, long_text, from_attention), Error);
}

INSTANTIATE_TEST_SUITE_P(Lengths, TextAnalysisInBlocks, ::testing::Values(128, 512));

TEST(TextAnalysisOfNothing, CapturesWithoutMapsOrColumnSumsAreRefusedInOneLine) {
  const Checkpoint& minilm = test::minilm_checkpoint();
  const Encoding encoding = minilm.encode("The cat sat.", 16);
  TextCaptures empty;  // what a result file saved with --captures none holds
  empty.num_layers = 6;
  empty.num_heads = 12;
  empty.length = static_cast<int64_t>(encoding.size());
  EXPECT_THROW(analyze_text(encoding, empty, AnalysisSettings{}), Error);
}

}  // namespace
}  // namespace attnscope
