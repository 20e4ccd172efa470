#pragma once
// tokenizer.json's Split pre-tokenizer: the text is cut at each match of the pattern (a String,
// or a Regex: unicode_regex.h), and the match is dropped (Removed), kept as a word of its own
// (Isolated, and Contiguous, where adjacent matches make one word), or joined to the word before
// it (MergedWithPrevious) or after it (MergedWithNext). Gemma's tokenizer splits on a String,
// Llama 3's and Qwen's on a Regex. `invert` is refused in one line naming it.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tokenizer/unicode_regex.h"
#include "tokenizer/utf8.h"

namespace attnscope {

class SplitPreTokenizer {
 public:
  enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

  SplitPreTokenizer() = default;
  static SplitPreTokenizer from_json(const nlohmann::json& json, const std::string& source);

  std::vector<CharString> words(const CharString& chars) const;

 private:
  // The matches as ranges of chars [first, last).
  std::vector<std::pair<size_t, size_t>> matches(const CharString& chars) const;

  std::u32string literal_;
  std::shared_ptr<const UnicodeRegex> regex_;  // shared: the pipeline's settings are copied
  Behavior behavior_ = Behavior::Isolated;
};

}  // namespace attnscope
