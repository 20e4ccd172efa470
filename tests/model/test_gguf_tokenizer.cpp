// The tokenizers of the two real decoders' GGUF files give the ids transformers' tokenizer gives
// for the same files (tests/golden/gguf/tokens.json, tools/make_gguf_golden.py --real: written
// texts and 300 random strings), and what cannot be built is named.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "model/gguf_tokenizer.h"
#include "tokenizer/tokenizer.h"
#include "support/paths.h"

namespace attnscope {
namespace {

class GgufTokenizer : public ::testing::TestWithParam<std::string> {};

// Every text of tokens.json for this decoder gives transformers' ids (the first five that do not
// are named).
void expect_transformers_ids(const Tokenizer& tokenizer, const std::string& decoder) {
  size_t wrong = 0;
  const nlohmann::json cases =
      test::read_json(test::golden_dir() / "gguf" / "tokens.json");  // kept: the loop reads into it
  for (const auto& c : cases[decoder]) {
    const std::string text = c["text"];
    const std::vector<int64_t> ids = tokenizer.encode(text, 1 << 20).ids();
    if (ids != c["ids"].get<std::vector<int64_t>>() && ++wrong <= 5)
      ADD_FAILURE() << "\"" << text << "\": got " << nlohmann::json(ids).dump() << ", transformers " << c["ids"].dump();
  }
  EXPECT_EQ(wrong, 0u);
}

TEST_P(GgufTokenizer, IdsAreTransformers) {
  const nlohmann::json real = test::read_json(test::golden_dir() / "gguf" / "real.json")[GetParam()];
  const auto path = test::real_model_file(real["file"].get<std::string>());
  if (!std::filesystem::exists(path)) return;
  expect_transformers_ids(*load_gguf_tokenizer(GgufFile(path)), GetParam());
}

// The same vocabularies as Hugging Face folders (tokenizer.json, written by transformers from the
// files: tools/write_decoder_tokenizers.py, which checks that transformers reads the folders back
// to these same ids): attnscope's tokenizer.json reader on real decoder vocabularies.
TEST_P(GgufTokenizer, TheirHuggingFaceFoldersGiveTheSameIds) {
  const auto folder = test::real_model_file("models/" + GetParam() + "-tokenizer/tokenizer.json").parent_path();
  if (!std::filesystem::exists(folder)) return;
  expect_transformers_ids(*load_tokenizer(folder), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Decoders, GgufTokenizer, ::testing::Values("smollm2", "gemma3"));

TEST(GgufVocabularyTest, MergesFromAVocabularyFollowItsOrder) {
  // "ab" and "abc" are tokens: "abc" splits as a+bc (no "bc") or ab+c; "ab" as a+b.
  const std::vector<std::string> tokens = {"a", "b", "c", "ab", "abc", "ca"};
  const auto merges = merges_from_vocabulary(tokens);
  const std::vector<std::pair<std::string, std::string>> want = {{"a", "b"}, {"ab", "c"}, {"c", "a"}};
  EXPECT_EQ(merges, want);
}

// Halves end at characters, never inside one's bytes; a token listed twice ranks by its last id
// (as a Python dict built from the list keeps it) and is split once; of one token's splits the
// longer left half first.
TEST(GgufVocabularyTest, MergesSplitBetweenCharactersAndRankATokenByItsLastId) {
  const std::vector<std::string> tokens = {"\u00e9",        "a",       "\u00e9a",     "\u2581",
                                           "\u2581\u00e9a", "\u00e9a", "\u2581\u00e9"};
  const auto merges = merges_from_vocabulary(tokens);
  // transformers' generate_merges(vocab, [(token, -place) ...]) on the same list.
  const std::vector<std::pair<std::string, std::string>> want = {
      {"\u2581\u00e9", "a"}, {"\u2581", "\u00e9a"}, {"\u00e9", "a"}, {"\u2581", "\u00e9"}};
  EXPECT_EQ(merges, want);
  EXPECT_THROW(merges_from_vocabulary({"a", "\xc3"}), Error);  // not UTF-8: named, not split by bytes
}

TEST(GgufVocabularyTest, WhatCannotBeBuiltIsNamed) {
  GgufVocabulary v;
  v.tokens = {"a"};
  v.model = "bert";
  EXPECT_THROW(gguf_tokenizer_json(v, "x.gguf"), Error);
  v.model = "gpt2";
  v.pre = "tekken";
  try {
    gguf_tokenizer_json(v, "x.gguf");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tekken"), std::string::npos);
  }
  v.pre = "llama-bpe";  // Llama 3's pattern, then the bytes
  EXPECT_EQ(gguf_tokenizer_json(v, "x.gguf")["pre_tokenizer"]["pretokenizers"][0]["type"], "Split");
  v.tokens.clear();
  EXPECT_THROW(gguf_tokenizer_json(v, "x.gguf"), Error);
}

}  // namespace
}  // namespace attnscope
