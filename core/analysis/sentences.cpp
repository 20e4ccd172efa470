#include "analysis/sentences.h"

#include "tokenizer/piece_text.h"

namespace attnscope {
namespace {

bool ends_sentence(const Token& t) {
  if (t.special) return false;
  const std::string piece = readable_piece(t.text);  // "Ġ." and "▁." end a sentence as "." does
  return piece == "." || piece == "!" || piece == "?";
}

}  // namespace

std::vector<int> punctuation_sentences(const std::vector<Token>& tokens) {
  std::vector<int> sentence(tokens.size(), 0);
  const size_t n = tokens.size();
  int current = 0;
  for (size_t i = 1; i < n; ++i) {
    const bool final_sep = i == n - 1 && tokens[i].special;  // the end token ([SEP], </s>) by its role
    if (ends_sentence(tokens[i - 1]) && !ends_sentence(tokens[i]) && !final_sep) ++current;
    sentence[i] = current;
  }
  return sentence;
}

std::vector<int> segment_sentences(const std::vector<Segment>& segments, int n) {
  std::vector<int> sentence(static_cast<size_t>(n), 0);
  for (size_t k = 0; k < segments.size(); ++k)
    for (int i = segments[k].first; i <= segments[k].last; ++i) sentence[static_cast<size_t>(i)] = static_cast<int>(k);
  return sentence;
}

}  // namespace attnscope
