// Which tokens of two runs stand for each other (docs/compare.md), on encodings made by hand.
#include <gtest/gtest.h>

#include "base/error.h"
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

// Two long texts that differ in one token: the tokens both start and end with match at once (a
// whole table would take 1.6 GB); two that share nothing so long are refused in one line.
TEST(TokenAlignment, AnEditOfALongTextAlignsInTheSizeOfTheEdit) {
  Encoding a, b, other;
  for (int i = 0; i < 20000; ++i) {
    a.tokens.push_back(piece(100 + i % 50, "w" + std::to_string(i % 50), i, i + 1));
    other.tokens.push_back(piece(1000 + i % 50, "v" + std::to_string(i % 50), i, i + 1));
  }
  b = a;
  b.tokens[7000] = piece(99, "edit", 7000, 7001);
  b.tokens.insert(b.tokens.begin() + 12000, piece(98, "more", 12000, 12001));
  const TokenAlignment t = align_tokens(a, "text a", b, "text b");
  EXPECT_FALSE(t.identical);
  ASSERT_EQ(t.size(), 19999u);
  for (size_t k = 0; k < t.size(); ++k) {
    EXPECT_EQ(a.tokens[static_cast<size_t>(t.a[k])].id, b.tokens[static_cast<size_t>(t.b[k])].id);
    if (k > 0) EXPECT_TRUE(t.a[k] > t.a[k - 1] && t.b[k] > t.b[k - 1]);
  }
  EXPECT_THROW(align_tokens(a, "text a", other, "other"), Error);
}

}  // namespace
}  // namespace attnscope
