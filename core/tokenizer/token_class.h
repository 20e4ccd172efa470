#pragma once
// What kind of token a word piece is, for the findings about where attention gathers: the first
// position ([CLS], or a decoder's start token: its attention sink), another special token, a
// punctuation mark (the paper's sentence separators "," and "."), or a piece of a word.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tokenizer/encoding.h"

namespace attnscope {

enum class TokenClass : uint8_t { First, Special, Punctuation, Word };
inline constexpr int kTokenClasses = 4;

// "first token", "special", "punctuation", "word"; and as a name in tables: "first", ...
const char* token_class_name(TokenClass c);
const char* token_class_key(TokenClass c);

// Punctuation: a piece whose characters, once its vocabulary's marks ("##", "Ġ", "▁") are
// dropped and spaces trimmed, are all punctuation by BERT's rule (categories P* and ASCII symbols).
TokenClass token_class(const Token& token, size_t position);
std::vector<TokenClass> token_classes(const Encoding& encoding);

}  // namespace attnscope
