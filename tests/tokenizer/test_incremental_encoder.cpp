// IncrementalEncoder: after any edit, exactly what encoding the whole text gives, while only the
// stretch around the edit is tokenised again.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "base/error.h"
#include "support/paths.h"
#include "tokenizer/bert_tokenizer.h"
#include "tokenizer/incremental_encoder.h"

namespace attnscope {
namespace {

void expect_same(const Encoding& got, const Encoding& want, const std::string& what) {
  ASSERT_EQ(got.ids(), want.ids()) << what;
  EXPECT_EQ(got.full_length, want.full_length) << what;
  EXPECT_EQ(got.truncated, want.truncated) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got.tokens[i].begin, want.tokens[i].begin) << what << " token " << i;
    EXPECT_EQ(got.tokens[i].end, want.tokens[i].end) << what << " token " << i;
    EXPECT_EQ(got.tokens[i].text, want.tokens[i].text) << what << " token " << i;
  }
}

std::string examples() {
  std::string text;
  for (const char* name : {"lighthouse.txt", "classroom.txt", "research.txt"}) {
    std::ifstream in(test::source_dir() / "assets" / "examples" / name);
    std::stringstream s;
    s << in.rdbuf();
    text += s.str();
  }
  return text;
}

// What a typist or a paste may put anywhere: words, every kind of white space, accents split into
// combining marks, CJK, special tokens whole and cut, control characters, punctuation.
const std::vector<std::string> kSnippets = {"a",
                                            " ",
                                            "word ",
                                            "\n",
                                            "\t",
                                            "\r\n",
                                            "e\xCC\x81",
                                            "\xCC\x81",
                                            "caf\xC3\xA9 ",
                                            "\xE4\xB8\xAD\xE6\x96\x87",
                                            "[SEP]",
                                            "[SE",
                                            "P]",
                                            "[MASK] x",
                                            "\xE2\x80\x8B",
                                            ".",
                                            "!?",
                                            "  ",
                                            "un",
                                            "##",
                                            "\xC2\xA0",
                                            "\xE3\x80\x80",
                                            "Hello,",
                                            "ed"};

TEST(IncrementalEncoder, EveryEditGivesWhatTheWholeTextGives) {
  const auto tokenizer_made = bert_tokenizer(Vocab::load(test::minilm_dir() / "vocab.txt"), NormalizerOptions{});
  const Tokenizer& tokenizer = *tokenizer_made;
  IncrementalEncoder encoder;
  std::mt19937 random(7);
  std::string text = examples();
  // Edits at characters' boundaries, as the editor makes them.
  const auto boundary = [&text](size_t at) {
    while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
    return at;
  };
  for (int edit = 0; edit < 400; ++edit) {
    const size_t at = boundary(std::uniform_int_distribution<size_t>(0, text.size())(random));
    const size_t cut = boundary(std::min(text.size(), at + std::uniform_int_distribution<size_t>(0, 12)(random))) - at;
    switch (edit % 3) {
      case 0: text.insert(at, kSnippets[random() % kSnippets.size()]); break;
      case 1: text.erase(at, cut); break;
      default: text.replace(at, cut, kSnippets[random() % kSnippets.size()]);
    }
    const size_t max_length = edit % 2 ? 512 : 8;
    expect_same(encoder.encode(tokenizer, text, max_length), tokenizer.encode(text, max_length),
                "edit " + std::to_string(edit));
    if (HasFatalFailure()) return;
  }
}

TEST(IncrementalEncoder, AnEditTokenisesOnlyItsOwnStretchAgain) {
  const auto tokenizer_made = bert_tokenizer(Vocab::load(test::minilm_dir() / "vocab.txt"), NormalizerOptions{});
  const Tokenizer& tokenizer = *tokenizer_made;
  IncrementalEncoder encoder;
  std::string text;
  for (int k = 0; k < 8; ++k) text += examples();
  encoder.encode(tokenizer, text, 128);
  EXPECT_EQ(encoder.last_tokenised_bytes(), text.size());
  text.insert(0, "x");  // typed at the start, as the window's benchmark types
  expect_same(encoder.encode(tokenizer, text, 128), tokenizer.encode(text, 128), "at the start");
  EXPECT_LT(encoder.last_tokenised_bytes(), 40u);
  text.erase(text.size() / 2, 3);
  expect_same(encoder.encode(tokenizer, text, 128), tokenizer.encode(text, 128), "in the middle");
  EXPECT_LT(encoder.last_tokenised_bytes(), 60u);
  text += " the end";
  expect_same(encoder.encode(tokenizer, text, 128), tokenizer.encode(text, 128), "at the end");
  EXPECT_LT(encoder.last_tokenised_bytes(), 40u);
  expect_same(encoder.encode(tokenizer, "", 128), tokenizer.encode("", 128), "emptied");
  // Invalid UTF-8 in the edit: the whole text's error, then the next text as ever.
  std::string broken = text;
  broken.insert(5, "\xC3");
  std::string expected;
  try {
    tokenizer.encode(broken, 128);
  } catch (const Error& e) {
    expected = e.what();
  }
  ASSERT_FALSE(expected.empty());
  encoder.encode(tokenizer, text, 128);
  try {
    encoder.encode(tokenizer, broken, 128);
    ADD_FAILURE() << "invalid UTF-8 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
  expect_same(encoder.encode(tokenizer, text, 128), tokenizer.encode(text, 128), "pasted back");
}

TEST(IncrementalEncoder, AnotherTokenizerOrOneWhosePiecesDependOnContextTokenisesTheWholeText) {
  const auto lower_made = bert_tokenizer(Vocab::load(test::minilm_dir() / "vocab.txt"), NormalizerOptions{});
  const Tokenizer& lower = *lower_made;
  NormalizerOptions cased_options;
  cased_options.lowercase = cased_options.strip_accents = false;
  const auto cased_made = bert_tokenizer(Vocab::load(test::minilm_dir() / "vocab.txt"), cased_options);
  const Tokenizer& cased = *cased_made;
  IncrementalEncoder encoder;
  const std::string text = examples();
  encoder.encode(lower, text, 64);
  expect_same(encoder.encode(cased, text, 64), cased.encode(text, 64), "another tokenizer");
  EXPECT_EQ(encoder.last_tokenised_bytes(), text.size());

  // RoBERTa's byte-level BPE puts a word's space in its first piece: never cut after whitespace.
  const auto roberta = load_tokenizer(test::golden_dir() / "checkpoints" / "roberta");
  ASSERT_FALSE(roberta->splits_after_whitespace());
  encoder.encode(*roberta, text, 64);
  const std::string edited = "x" + text;
  expect_same(encoder.encode(*roberta, edited, 64), roberta->encode(edited, 64), "byte-level BPE");
  EXPECT_EQ(encoder.last_tokenised_bytes(), edited.size());
}

}  // namespace
}  // namespace attnscope
