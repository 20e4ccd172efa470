// The statistics table of METHOD.md on a hand-made text and pair list.
#include <gtest/gtest.h>

#include "analysis/head_stats.h"

namespace attnscope {
namespace {

// positions:  0     1    2    3    4    5     6
// tokens:     [CLS] the  cat  .    the  dog   [SEP]
// sentences:  0     0    0    0    1    1     1
TextFacts facts(bool with_special = true) {
  return text_facts({101, 7, 8, 9, 7, 10, 102}, {0, 0, 0, 0, 1, 1, 1},
                    {with_special, true, true, true, true, true, with_special});
}

TEST(HeadStats, EveryStatisticByHand) {
  // pairs: (1,4) the-the, (1,2), (2,5), (1,5)
  const HeadStats s = head_stats({{1, 2, 0.5f}, {1, 4, 1.0f}, {1, 5, 0.4f}, {2, 5, 0.3f}}, facts());
  EXPECT_EQ(s.count, 4);
  EXPECT_DOUBLE_EQ(*s.density, 4.0 / 21.0);                       // 7 tokens: 21 pairs
  EXPECT_DOUBLE_EQ(*s.repeat_share, 1.0 / 4.0);                   // (1,4)
  EXPECT_DOUBLE_EQ(*s.same_sentence_repeat_share, 0.0);           // "the" and "the" are in different sentences
  EXPECT_DOUBLE_EQ(*s.same_sentence_share, 1.0 / 4.0);            // only (1,2)
  EXPECT_DOUBLE_EQ(*s.chance_same_sentence, (6.0 + 3.0) / 21.0);  // C(4,2) + C(3,2) of 21
  EXPECT_DOUBLE_EQ(*s.mean_distance, (1 + 3 + 4 + 3) / 4.0);
  EXPECT_EQ(s.distance_histogram[1], 1);
  EXPECT_EQ(s.distance_histogram[3], 2);
  EXPECT_EQ(s.distance_histogram[4], 1);
  EXPECT_EQ(*s.anchor_index, 1);  // "the" at 1 is in 3 pairs
  EXPECT_EQ(*s.anchor_id, 7);
  EXPECT_DOUBLE_EQ(*s.anchor_share, 3.0 / 4.0);
}

TEST(HeadStats, AnchorTiesGoToTheLowestPosition) {
  const HeadStats s = head_stats({{2, 3, 1.0f}, {4, 5, 1.0f}}, facts());
  EXPECT_EQ(*s.anchor_index, 2);
  EXPECT_DOUBLE_EQ(*s.anchor_share, 0.5);
}

TEST(HeadStats, NoPairsMeansUndefinedNotZero) {
  const HeadStats s = head_stats({}, facts());
  EXPECT_EQ(s.count, 0);
  EXPECT_DOUBLE_EQ(*s.density, 0.0);
  EXPECT_FALSE(s.repeat_share);
  EXPECT_FALSE(s.same_sentence_repeat_share);
  EXPECT_FALSE(s.same_sentence_share);
  EXPECT_FALSE(s.mean_distance);
  EXPECT_FALSE(s.anchor_index);
  EXPECT_FALSE(s.anchor_id);
  EXPECT_FALSE(s.anchor_share);
  EXPECT_TRUE(s.chance_same_sentence);  // a property of the text, defined all the same
}

TEST(HeadStats, LeftOutSpecialTokensChangeTheDenominators) {
  const TextFacts f = facts(false);
  EXPECT_EQ(f.participants, 5);
  EXPECT_DOUBLE_EQ(*f.chance_same_sentence, (3.0 + 1.0) / 10.0);  // C(3,2) + C(2,2) of C(5,2)
  EXPECT_DOUBLE_EQ(*head_stats({{1, 2, 1.0f}}, f).density, 0.1);
}

TEST(HeadStats, OneTokenTextHasNoDensity) {
  const TextFacts f = text_facts({5}, {0}, {true});
  EXPECT_FALSE(f.chance_same_sentence);
  EXPECT_FALSE(head_stats({}, f).density);
}

}  // namespace
}  // namespace attnscope
