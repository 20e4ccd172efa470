#pragma once
// tokenizer.json's Split pre-tokenizer with a String pattern: the text is cut at each occurrence
// of the pattern, and the occurrence is dropped (Removed), kept as a word of its own (Isolated,
// and Contiguous, where a run of occurrences is one word), or joined to the word before it
// (MergedWithPrevious) or after it (MergedWithNext). Gemma's tokenizer has one. A Regex pattern
// and `invert` are refused in one line naming them.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tokenizer/utf8.h"

namespace attnscope {

class SplitPreTokenizer {
 public:
  enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

  SplitPreTokenizer() = default;
  SplitPreTokenizer(std::u32string pattern, Behavior behavior);
  static SplitPreTokenizer from_json(const nlohmann::json& json, const std::string& source);

  std::vector<CharString> words(const CharString& chars) const;

 private:
  std::u32string pattern_;
  Behavior behavior_ = Behavior::Isolated;
};

}  // namespace attnscope
