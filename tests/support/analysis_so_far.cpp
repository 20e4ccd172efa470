#include "support/analysis_so_far.h"

#include <gtest/gtest.h>

namespace attnscope::test {

void expect_analyses_so_far(const std::vector<TextAnalysis>& so_far, const TextAnalysis& whole) {
  EXPECT_FALSE(whole.heads_scanned);
  ASSERT_FALSE(so_far.empty());
  int64_t before = 0;
  for (const TextAnalysis& a : so_far) {
    ASSERT_TRUE(a.heads_scanned);
    const int64_t scanned = *a.heads_scanned;
    EXPECT_GT(scanned, before);
    before = scanned;
    ASSERT_EQ(a.heads.size(), whole.heads.size());
    EXPECT_EQ(a.num_layers, whole.num_layers);
    EXPECT_EQ(a.num_heads, whole.num_heads);
    EXPECT_TRUE(a.layers.empty());
    EXPECT_FALSE(a.head_outputs.defined());
    for (size_t k = 0; k < whole.heads.size(); ++k) {
      const HeadAnalysis &h = a.heads[k], &w = whole.heads[k];
      EXPECT_EQ(h.pairs.tokens(), 0) << "head " << k;
      if (static_cast<int64_t>(k) >= scanned) {
        EXPECT_EQ(h.pair_count, 0) << "head " << k;
        EXPECT_FALSE(h.stats.mean_distance) << "head " << k;
        continue;
      }
      EXPECT_EQ(h.scale, w.scale) << "head " << k;
      EXPECT_EQ(h.pair_count, w.pair_count) << "head " << k;
      EXPECT_EQ(h.stats.count, w.stats.count) << "head " << k;
      EXPECT_EQ(h.stats.anchor_index, w.stats.anchor_index) << "head " << k;
      EXPECT_EQ(h.stats.same_sentence_share, w.stats.same_sentence_share) << "head " << k;
      EXPECT_EQ(h.stats.mean_distance, w.stats.mean_distance) << "head " << k;
      EXPECT_EQ(h.stats.distance_histogram, w.stats.distance_histogram) << "head " << k;
    }
  }
  EXPECT_EQ(before, static_cast<int64_t>(whole.heads.size()));
}

}  // namespace attnscope::test
