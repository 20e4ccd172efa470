#include "tokenizer/pre_tokenizer.h"

#include "tokenizer/char_classes.h"

namespace attnscope {

std::vector<CharSpan> split_words(const CharString& text) {
  std::vector<CharSpan> words;
  size_t start = 0;
  auto flush = [&](size_t end) {
    if (end > start) words.push_back({start, end});
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char32_t cp = text[i].cp;
    if (is_bert_whitespace(cp)) {
      flush(i);
      start = i + 1;
    } else if (is_bert_punctuation(cp)) {
      flush(i);
      words.push_back({i, i + 1});
      start = i + 1;
    }
  }
  flush(text.size());
  return words;
}

}  // namespace attnscope
