// Split with a String pattern, each behavior by hand (as the tokenizers library documents them:
// "the-final--countdown" split on "-"); Llama 3's Regex as the tokenizers library splits a text.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "tokenizer/split_pre_tokenizer.h"

namespace attnscope {
namespace {

std::vector<std::string> words_of(const char* behavior, const std::string& text) {
  const auto split = SplitPreTokenizer::from_json(
      {{"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", behavior}, {"invert", false}}, "t.json");
  std::vector<std::string> out;
  const CharString chars = decode_utf8(text);
  for (const CharString& w : split.words(chars)) out.push_back(encode_utf8(w.data(), w.data() + w.size()));
  return out;
}

using Words = std::vector<std::string>;

TEST(SplitPreTokenizer, EachBehaviorAsDocumented) {
  const std::string text = "the-final--countdown";
  EXPECT_EQ(words_of("Removed", text), (Words{"the", "final", "countdown"}));
  EXPECT_EQ(words_of("Isolated", text), (Words{"the", "-", "final", "-", "-", "countdown"}));
  EXPECT_EQ(words_of("MergedWithPrevious", text), (Words{"the-", "final-", "-", "countdown"}));
  EXPECT_EQ(words_of("MergedWithNext", text), (Words{"the", "-final", "-", "-countdown"}));
  EXPECT_EQ(words_of("Contiguous", text), (Words{"the", "-", "final", "--", "countdown"}));
  EXPECT_EQ(words_of("Isolated", "-"), (Words{"-"}));
  EXPECT_EQ(words_of("Removed", "--"), (Words{}));
  EXPECT_EQ(words_of("MergedWithPrevious", "é-ü"), (Words{"é-", "ü"}));
}

TEST(SplitPreTokenizer, Llama3sPatternAsTheTokenizersLibrary) {
  const char* pattern =
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  const auto split = SplitPreTokenizer::from_json(
      {{"type", "Split"}, {"pattern", {{"Regex", pattern}}}, {"behavior", "Isolated"}, {"invert", false}}, "t.json");
  std::vector<std::string> got;
  const CharString chars = decode_utf8("I'LL pay 12345 for naïve  café!\n\n  ok");
  for (const CharString& w : split.words(chars)) got.push_back(encode_utf8(w.data(), w.data() + w.size()));
  EXPECT_EQ(got, (Words{"I", "'LL", " pay", " ", "123", "45", " for", " naïve", " ", " café", "!\n\n", " ", " ok"}));
}

TEST(SplitPreTokenizer, WhatIsNotReadIsNamed) {
  const auto error = [](const nlohmann::json& j) {
    try {
      SplitPreTokenizer::from_json(j, "t.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error({{"pattern", {{"Regex", "(unclosed"}}}, {"behavior", "Isolated"}}).find("does not compile"),
            std::string::npos);
  EXPECT_NE(error({{"pattern", 3}}).find("String or a Regex"), std::string::npos);
  EXPECT_NE(error({{"pattern", {{"String", "-"}}}, {"behavior", "Isolated"}, {"invert", true}}).find("invert"),
            std::string::npos);
  EXPECT_NE(error({{"pattern", {{"String", "-"}}}, {"behavior", "Sideways"}}).find("Sideways"), std::string::npos);
  EXPECT_NE(error({{"pattern", {{"String", ""}}}}).find("empty"), std::string::npos);
}

TEST(SplitPreTokenizer, APatternThatWouldBacktrackForeverStopsWithAMessage) {
  const auto split = SplitPreTokenizer::from_json(
      {{"type", "Split"}, {"pattern", {{"Regex", "(a+)+$"}}}, {"behavior", "Isolated"}}, "t.json");
  const CharString chars = decode_utf8(std::string(40, 'a') + "!");
  try {
    split.words(chars);
    ADD_FAILURE() << "no limit";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("could not be matched"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace attnscope
