#pragma once
// SentencePiece's precompiled normaliser (the "precompiled_charsmap" of XLM-R, ALBERT, T5 and
// DeBERTa-v3 tokenizer.json files): a darts-clone double-array trie from UTF-8 strings to
// offsets in a blob of NUL-terminated replacements. Applied as the reference applies it: per
// extended grapheme cluster when the cluster is short, otherwise character by character.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/utf8.h"

namespace attnscope {

class PrecompiledCharsmap {
 public:
  // The decoded bytes of precompiled_charsmap; throws naming `source` when they are malformed.
  PrecompiledCharsmap(const std::vector<std::byte>& blob, const std::string& source);

  // The replacement of the first (shortest) entry that is a prefix of `key`, if any.
  std::optional<std::string_view> transform(std::string_view key) const;
  CharString normalize(const CharString& chars) const;

 private:
  std::vector<uint32_t> trie_;
  std::string replacements_;
};

// Applies the reference's (char, change) edit script to `in`: change 0 keeps the current source
// character's range and moves on, a negative change also drops that many source characters, a
// positive one inserts a character that takes the range of the character before it.
CharString apply_changes(const CharString& in, const std::vector<std::pair<char32_t, int>>& changes);

}  // namespace attnscope
