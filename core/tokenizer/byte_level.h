#pragma once
// The byte-level pre-tokenizer of GPT-2, RoBERTa and ModernBERT: the text is cut into words by
// GPT-2's pattern ('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+),
// and each byte of a word becomes one printable character, so that every text has a spelling in
// the vocabulary.
#include <array>
#include <string>
#include <vector>

#include "tokenizer/utf8.h"

namespace attnscope {

struct CharRange {
  size_t first, last;  // characters [first, last)
};

// Bytes 33-126, 161-172 and 174-255 stand for themselves; the others for 256, 257, ... in order.
const std::array<char32_t, 256>& byte_level_chars();

// The words of GPT-2's pattern, as ranges of chars.
std::vector<CharRange> split_gpt2_words(const CharString& chars);

// The word's bytes as byte-level characters, each keeping the source range of the character
// whose byte it is.
CharString to_byte_level(const SourceChar* first, const SourceChar* last);

// Unicode's White_Space property (\s of the pattern).
bool is_unicode_space(char32_t cp);

}  // namespace attnscope
