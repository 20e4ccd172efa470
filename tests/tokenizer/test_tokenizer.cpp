// Hand-written cases of the tokenizer: byte ranges, truncation, special tokens, bad UTF-8.
#include <gtest/gtest.h>

#include <chrono>

#include "base/error.h"
#include "support/paths.h"
#include "support/tiny_bert.h"
#include "tokenizer/bert_tokenizer.h"

namespace attnscope {
namespace {

const Tokenizer& minilm() {
  static const auto tokenizer = load_bert_tokenizer(test::minilm_dir());
  return *tokenizer;
}

std::vector<std::string> texts(const Encoding& e) {
  std::vector<std::string> out;
  for (const Token& t : e.tokens) out.push_back(t.text);
  return out;
}

TEST(Tokenizer, ByteRangesPointIntoTheOriginalText) {
  const std::string text = "Hello, wörld! Naïve";
  const Encoding e = minilm().encode(text);
  ASSERT_EQ(texts(e), (std::vector<std::string>{"[CLS]", "hello", ",", "world", "!", "naive", "[SEP]"}));
  EXPECT_EQ(text.substr(e.tokens[3].begin, e.tokens[3].end - e.tokens[3].begin), "wörld");
  EXPECT_EQ(text.substr(e.tokens[5].begin, e.tokens[5].end - e.tokens[5].begin), "Naïve");
  EXPECT_EQ(e.tokens[6].begin, text.size());  // the added [SEP] sits at the end, empty
  EXPECT_TRUE(e.tokens[0].special);
  EXPECT_FALSE(e.tokens[1].special);
}

// The split the paper's Fig. 4 token table shows for the same word.
TEST(Tokenizer, WordPiecesContinueWithHashes) {
  const Encoding e = minilm().encode("Gerstenslager");
  EXPECT_EQ(texts(e), (std::vector<std::string>{"[CLS]", "ge", "##rsten", "##sl", "##ager", "[SEP]"}));
  EXPECT_EQ(e.tokens[2].begin, 2u);
  EXPECT_EQ(e.tokens[2].end, 7u);
}

TEST(Tokenizer, TruncationKeepsClsFirstAndSepLastAndSaysSo) {
  const Encoding e = minilm().encode("one two three four five six", 5);
  EXPECT_EQ(texts(e), (std::vector<std::string>{"[CLS]", "one", "two", "three", "[SEP]"}));
  EXPECT_TRUE(e.truncated);
  EXPECT_EQ(e.full_length, 8u);
  const Encoding whole = minilm().encode("one two", 5);
  EXPECT_FALSE(whole.truncated);
  EXPECT_EQ(minilm().encode("one two three", 2).size(), 2u);
  EXPECT_THROW(minilm().encode("one", 1), Error);
}

TEST(Tokenizer, TypedSpecialTokensStayWhole) {
  const Encoding e = minilm().encode("the [MASK] sat[SEP]x [mask]");
  EXPECT_EQ(texts(e),
            (std::vector<std::string>{"[CLS]", "the", "[MASK]", "sat", "[SEP]", "x", "[", "mask", "]", "[SEP]"}));
  EXPECT_TRUE(e.tokens[2].special);
  EXPECT_EQ(e.tokens[2].begin, 4u);
  EXPECT_EQ(e.tokens[2].end, 10u);
}

TEST(Tokenizer, LongWordsAndUnknownWordsBecomeOneUnk) {
  const std::string word(101, 'a');
  const Encoding e = minilm().encode(word + " \U0001F600x");
  EXPECT_EQ(texts(e), (std::vector<std::string>{"[CLS]", "[UNK]", "[UNK]", "[SEP]"}));
  EXPECT_EQ(e.tokens[1].end, 101u);
  EXPECT_EQ(e.tokens[2].begin, 102u);
  EXPECT_EQ(e.tokens[2].end, 107u);
}

TEST(Tokenizer, EmptyAndBlankTextsGiveOnlyClsAndSep) {
  EXPECT_EQ(minilm().encode("").size(), 2u);
  EXPECT_EQ(minilm().encode(" \t\n\u200b").size(), 2u);
}

TEST(Tokenizer, InvalidUtf8NamesTheByte) {
  const std::pair<std::string, std::string> cases[] = {{"ab\xff", "byte 2"},
                                                       {"\xc0\xaf", "byte 0"},
                                                       {"ok \xed\xa0\x80", "byte 3"},
                                                       {"x\xe2\x82", "byte 1"},
                                                       {"\x80", "byte 0"}};
  for (const auto& [text, where] : cases) {
    try {
      minilm().encode(text);
      ADD_FAILURE() << "accepted invalid UTF-8";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("invalid UTF-8 at " + where), std::string::npos) << e.what();
    }
  }
}

TEST(Tokenizer, AMegabytePasteIsTokenisedAndTruncated) {
  std::string text;
  while (text.size() < (1u << 20)) text += "The keeper climbed the spiral stairs, and wrote the weather in his book. ";
  const Encoding e = minilm().encode(text, 128);
  EXPECT_EQ(e.size(), 128u);
  EXPECT_TRUE(e.truncated);
  EXPECT_GT(e.full_length, 200000u);
}

TEST(Tokenizer, CasedVocabulariesAreNotLowercased) {
  const test::TempDir dir;
  test::write_tiny_bert(dir.path(), {});
  test::write_text(dir / "tokenizer_config.json", R"({"do_lower_case": false})");
  const auto cased = load_bert_tokenizer(dir.path());
  EXPECT_EQ(texts(cased->encode("The cat")), (std::vector<std::string>{"[CLS]", "[UNK]", "cat", "[SEP]"}));
  std::filesystem::remove(dir / "tokenizer_config.json");
  EXPECT_EQ(texts(load_bert_tokenizer(dir.path())->encode("The cat")),
            (std::vector<std::string>{"[CLS]", "the", "cat", "[SEP]"}));
}

TEST(Tokenizer, BadTokenizerConfigIsAClearError) {
  const test::TempDir dir;
  test::write_tiny_bert(dir.path(), {});
  test::write_text(dir / "tokenizer_config.json", R"({"do_lower_case": "yes"})");
  EXPECT_THROW(load_bert_tokenizer(dir.path()), Error);
  test::write_text(dir / "tokenizer_config.json", "{");
  EXPECT_THROW(load_bert_tokenizer(dir.path()), Error);
}

}  // namespace
}  // namespace attnscope
