#pragma once
// BERT's pre-tokenisation: words are separated by white space, and every punctuation
// character is a word of its own.
#include <cstddef>
#include <vector>

#include "tokenizer/utf8.h"

namespace attnscope {

struct CharSpan {
  size_t first;  // index into the normalised text
  size_t last;   // one past the end
};

std::vector<CharSpan> split_words(const CharString& text);

}  // namespace attnscope
