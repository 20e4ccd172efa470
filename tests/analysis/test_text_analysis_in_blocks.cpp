// A long text's analysis (no map and no S whole: the forward keeps queries, keys and column sums,
// the pairs are found block by block) equals the analysis of the same text with every map kept,
// forced on the real MiniLM at 128 and 512 tokens: separators, pairs, statistics, pooled layers,
// norms, and the pairs listed for a head with their values.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/text_analysis.h"
#include "base/error.h"
#include "support/minilm.h"
#include "support/paths.h"

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
    EXPECT_EQ(a.pairs.bits(), b.pairs.bits()) << "head " << k;
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
  EXPECT_TRUE(at::allclose(blocks.summed_similarity(last), whole.summed_similarity(last), 1e-5, 1e-5));
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
  for (const bool specials : {true, false}) {
    AnalysisSettings settings;
    settings.include_special = specials;
    expect_same(analyze_text(encoding, long_text, settings), analyze_text(encoding, maps, settings));
  }
  AnalysisSettings from_attention;
  from_attention.pairs_from = PairInput::Attention;
  EXPECT_THROW(analyze_text(encoding, long_text, from_attention), Error);  // one line: S only
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
