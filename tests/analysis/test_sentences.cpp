#include <gtest/gtest.h>

#include "analysis/sentences.h"

namespace attnscope {
namespace {

std::vector<Token> tokens(std::vector<std::string> texts) {
  std::vector<Token> out;
  for (auto& t : texts) out.push_back({0, t, 0, 0, t.front() == '['});
  return out;
}

TEST(Sentences, ARunOfTerminatorsEndsTheSentenceItBelongsTo) {
  EXPECT_EQ(punctuation_sentences(tokens({"[CLS]", "a", ".", "b", "!", "?", "c", ".", "[SEP]"})),
            (std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2, 2}));
}

TEST(Sentences, OneSentenceWithoutAFullStop) {
  EXPECT_EQ(punctuation_sentences(tokens({"[CLS]", "a", "b", "[SEP]"})), (std::vector<int>{0, 0, 0, 0}));
}

TEST(Sentences, TextCutMidSentenceByTruncation) {
  EXPECT_EQ(punctuation_sentences(tokens({"[CLS]", "a", ".", "b", "[SEP]"})), (std::vector<int>{0, 0, 0, 1, 1}));
}

TEST(Sentences, FromSegments) {
  EXPECT_EQ(segment_sentences(segments_from({2, 4}, 6), 6), (std::vector<int>{0, 0, 0, 1, 1, 2}));
}

}  // namespace
}  // namespace attnscope
