#pragma once
// The "normalizer" of a tokenizer.json as a list of steps, each keeping every character's source
// range the way the reference's alignments do: NFC, NFD, NFKC, NFKD, Lowercase, StripAccents,
// Strip, Replace (a string, or the one kind of regular expression tokenizer.json files use:
// a character repeated, "c{n,}"), Prepend, Precompiled (SentencePiece's charsmap), and Sequence
// of these, and BERT's normalizer (normalizer.h: clean-up, CJK spacing, accents, lower case).
// Anything else is refused in one line naming it. (Replace's patterns stay this narrow: no
// tokenizer.json shipped with a model needs more; the Split pre-tokenizer's do, and run on
// PCRE2 with bounded backtracking, unicode_regex.h.)
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tokenizer/normalizer.h"
#include "tokenizer/precompiled_charsmap.h"
#include "tokenizer/utf8.h"

namespace attnscope {

class TextNormalizer {
 public:
  static TextNormalizer from_json(const nlohmann::json& json, const std::string& source);
  // BERT's normalizer alone (vocab.txt with tokenizer_config.json, or a BertNormalizer).
  static TextNormalizer bert(const NormalizerOptions& options);
  CharString apply(CharString chars) const;

 private:
  enum class Kind { Nfc, Nfkc, Nfd, Nfkd, Lowercase, StripAccents, Strip, Replace, Prepend, Precompiled, Bert };
  struct Step {
    Kind kind = Kind::Bert;
    bool left = false, right = false;  // Strip
    std::string content;               // Replace, Prepend
    std::string literal;               // Replace: a string pattern...
    char32_t repeated = 0;             // ...or a run of this character...
    size_t at_least = 0;               // ...this long or longer
    std::shared_ptr<const PrecompiledCharsmap> charsmap;
    NormalizerOptions bert;  // Bert
  };
  void add(const nlohmann::json& json, const std::string& source);
  static void read_repeat(const std::string& regex, Step& step, const std::string& source);
  static CharString replace(const CharString& chars, const Step& step);

  std::vector<Step> steps_;
};

}  // namespace attnscope
