// Which tokens of two runs stand for each other (docs/compare.md), on encodings made by hand.
#include <gtest/gtest.h>

#include "compare/token_alignment.h"

namespace attnscope {
namespace {

Token special(int32_t id, const std::string& text) { return Token{id, text, 0, 0, true}; }
Token piece(int32_t id, const std::string& text, uint32_t begin, uint32_t end) {
  return Token{id, text, begin, end, false};
}

TEST(TokenAlignment, TheSameTokensMatchThemselves) {
  const Encoding e{{special(1, "[CLS]"), piece(5, "hi", 0, 2), special(2, "[SEP]")}};
  const TokenAlignment t = align_tokens(e, "hi", e, "hi");
  EXPECT_TRUE(t.identical);
  EXPECT_EQ(t.a, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(t.b, t.a);
}

TEST(TokenAlignment, TwoTokenizersOfOneTextMatchByBytes) {
  // "playing ball": BERT [CLS] play ##ing ball [SEP]; a BPE <s> playing Ġball </s>
  const std::string text = "playing ball";
  const Encoding bert{{special(101, "[CLS]"), piece(2377, "play", 0, 4), piece(2075, "##ing", 4, 7),
                       piece(3608, "ball", 8, 12), special(102, "[SEP]")}};
  const Encoding bpe{{special(0, "<s>"), piece(816, "playing", 0, 7),
                      piece(1011,
                            "\xc4\xa0"
                            "ball",
                            8, 12),
                      special(2, "</s>")}};
  const TokenAlignment t = align_tokens(bert, text, bpe, text);
  EXPECT_FALSE(t.identical);
  EXPECT_EQ(t.a, (std::vector<int64_t>{0, 3, 4}));
  EXPECT_EQ(t.b, (std::vector<int64_t>{0, 2, 3}));
}

TEST(TokenAlignment, TwoTextsMatchTheirLongestCommonRun) {
  const Encoding a{{special(1, "[CLS]"), piece(10, "the", 0, 3), piece(11, "cat", 4, 7), piece(12, "sat", 8, 11),
                    special(2, "[SEP]")}};
  const Encoding b{{special(1, "[CLS]"), piece(10, "the", 0, 3), piece(13, "dog", 4, 7), piece(12, "sat", 8, 11),
                    special(2, "[SEP]")}};
  const TokenAlignment t = align_tokens(a, "the cat sat", b, "the dog sat");
  EXPECT_FALSE(t.identical);
  EXPECT_EQ(t.a, (std::vector<int64_t>{0, 1, 3, 4}));
  EXPECT_EQ(t.b, t.a);
}

TEST(TokenAlignment, NothingInCommonIsEmpty) {
  const Encoding a{{piece(10, "a", 0, 1)}}, b{{piece(11, "b", 0, 1)}};
  EXPECT_EQ(align_tokens(a, "a", b, "b").size(), 0u);
}

}  // namespace
}  // namespace attnscope
