#include <gtest/gtest.h>

#include "base/error.h"
#include "support/paths.h"
#include "tokenizer/bert_tokenizer.h"
#include "tokenizer/vocab.h"

namespace attnscope {
namespace {

TEST(Vocab, LineNumbersAreIdsWhateverTheLineEndings) {
  const test::TempDir dir;
  test::write_text(dir / "vocab.txt", "[PAD]\r\n[UNK]\ra\nb");
  const Vocab v = Vocab::load(dir / "vocab.txt");
  EXPECT_EQ(v.size(), 4u);
  EXPECT_EQ(v.find("a"), 2);
  EXPECT_EQ(v.find("b"), 3);
  EXPECT_EQ(v.token(1), "[UNK]");
  EXPECT_FALSE(v.find("c"));
  EXPECT_THROW(v.token(4), Error);
  EXPECT_THROW(v.token(-1), Error);
}

TEST(Vocab, ARepeatedTokenKeepsItsLastLine) {
  const Vocab v = Vocab::from_tokens({"a", "b", "a"});
  EXPECT_EQ(v.find("a"), 2);
}

TEST(Vocab, MissingEmptyOrIncompleteVocabularies) {
  const test::TempDir dir;
  EXPECT_THROW(Vocab::load(dir / "vocab.txt"), Error);
  test::write_text(dir / "vocab.txt", "");
  EXPECT_THROW(Vocab::load(dir / "vocab.txt"), Error);
  try {
    bert_tokenizer(Vocab::from_tokens({"[PAD]", "[CLS]", "[SEP]", "a"}), {});
    FAIL() << "a vocabulary without [UNK] was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("[UNK]"), std::string::npos);
  }
}

TEST(Vocab, TheRealVocabulary) {
  const Vocab v = Vocab::load(test::minilm_dir() / "vocab.txt");
  EXPECT_EQ(v.size(), 30522u);
  EXPECT_EQ(v.find("[CLS]"), 101);
  EXPECT_EQ(v.find("[SEP]"), 102);
  EXPECT_EQ(v.find("[MASK]"), 103);
}

}  // namespace
}  // namespace attnscope
