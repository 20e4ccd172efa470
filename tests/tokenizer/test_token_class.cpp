// Token classes: the first position, other special tokens, punctuation in every vocabulary's
// spelling, and words.
#include <gtest/gtest.h>

#include "tokenizer/token_class.h"

namespace attnscope {
namespace {

Token piece(std::string text, bool special = false) {
  Token t;
  t.text = std::move(text);
  t.special = special;
  return t;
}

TEST(TokenClass, FirstPositionThenSpecialThenPunctuationElseWord) {
  EXPECT_EQ(token_class(piece("[CLS]", true), 0), TokenClass::First);
  EXPECT_EQ(token_class(piece("the"), 0), TokenClass::First);  // a decoder's first token, whatever it is
  EXPECT_EQ(token_class(piece("[SEP]", true), 5), TokenClass::Special);
  EXPECT_EQ(token_class(piece("<|endoftext|>", true), 5), TokenClass::Special);
  for (const char* p :
       {",", ".", "!", "?", "...", "##.", "\xC4\xA0,", "\xE2\x96\x81.", "\xE2\x80\x94", "\xC2\xBF", ";", ".\n",
        ".\xC4\x8A", "<0x2E>"})  // a full stop and a line break, SentencePiece's and byte-level; a fallback byte
    EXPECT_EQ(token_class(piece(p), 3), TokenClass::Punctuation) << p;
  for (const char* p : {"the", "##ing", "\xC4\xA0the", "\xE2\x96\x81", "\xC4\xA0", "a.", "1974", "<E2 80>", "", "\n"})
    EXPECT_EQ(token_class(piece(p), 3), TokenClass::Word) << p;
}

TEST(TokenClass, AllOfAnEncodingAndTheirNames) {
  Encoding e;
  e.tokens = {piece("[CLS]", true), piece("hi"), piece(","), piece("[SEP]", true)};
  EXPECT_EQ(token_classes(e), (std::vector<TokenClass>{TokenClass::First, TokenClass::Word, TokenClass::Punctuation,
                                                       TokenClass::Special}));
  EXPECT_STREQ(token_class_name(TokenClass::First), "first token");
  EXPECT_STREQ(token_class_key(TokenClass::First), "first");
  EXPECT_STREQ(token_class_key(TokenClass::Punctuation), "punctuation");
}

}  // namespace
}  // namespace attnscope
