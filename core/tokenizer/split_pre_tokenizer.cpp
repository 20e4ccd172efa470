#include "tokenizer/split_pre_tokenizer.h"

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json_fields.h"

namespace attnscope {

SplitPreTokenizer::SplitPreTokenizer(std::u32string pattern, Behavior behavior)
    : pattern_(std::move(pattern)), behavior_(behavior) {}

SplitPreTokenizer SplitPreTokenizer::from_json(const nlohmann::json& json, const std::string& source) {
  const nlohmann::json& pattern = json_member(json, "pattern");
  if (!pattern.is_object() || !pattern.contains("String") || !pattern["String"].is_string())
    throw Error(source + ": a Split pre-tokenizer with a " + (pattern.contains("Regex") ? "Regex" : "missing") +
                " pattern is not supported (a String pattern is)");
  if (json.value("invert", false)) throw Error(source + ": a Split pre-tokenizer with invert is not supported");
  std::u32string literal;
  for (const SourceChar& c : decode_utf8(pattern["String"].get<std::string>())) literal.push_back(c.cp);
  if (literal.empty()) throw Error(source + ": a Split pre-tokenizer with an empty pattern");
  const std::string behavior = json.value("behavior", std::string("Removed"));
  static const std::pair<const char*, Behavior> names[] = {{"Removed", Behavior::Removed},
                                                           {"Isolated", Behavior::Isolated},
                                                           {"MergedWithPrevious", Behavior::MergedWithPrevious},
                                                           {"MergedWithNext", Behavior::MergedWithNext},
                                                           {"Contiguous", Behavior::Contiguous}};
  for (const auto& [name, value] : names)
    if (behavior == name) return {std::move(literal), value};
  throw Error(source + ": Split behavior \"" + behavior + "\" is not one of Removed, Isolated, MergedWithPrevious, " +
              "MergedWithNext, Contiguous");
}

std::vector<CharString> SplitPreTokenizer::words(const CharString& chars) const {
  std::vector<CharString> words;
  CharString current;
  bool last_was_match = false;  // Contiguous: the word before is a run of matches
  const auto flush = [&] {
    if (!current.empty()) words.push_back(std::move(current));
    current.clear();
  };
  for (size_t i = 0; i < chars.size();) {
    bool match = i + pattern_.size() <= chars.size();
    for (size_t k = 0; match && k < pattern_.size(); ++k) match = chars[i + k].cp == pattern_[k];
    if (!match) {
      if (last_was_match && behavior_ == Behavior::Contiguous) flush();  // the run of matches ends
      current.push_back(chars[i++]);
      last_was_match = false;
      continue;
    }
    const CharString occurrence(chars.begin() + static_cast<std::ptrdiff_t>(i),
                                chars.begin() + static_cast<std::ptrdiff_t>(i + pattern_.size()));
    i += pattern_.size();
    switch (behavior_) {
      case Behavior::Removed: flush(); break;
      case Behavior::Isolated:
        flush();
        words.push_back(occurrence);
        break;
      case Behavior::MergedWithPrevious:
        current.insert(current.end(), occurrence.begin(), occurrence.end());
        flush();
        break;
      case Behavior::MergedWithNext:
        flush();
        current = occurrence;
        break;
      case Behavior::Contiguous:
        if (!last_was_match) flush();
        current.insert(current.end(), occurrence.begin(), occurrence.end());
        break;
    }
    last_was_match = true;
  }
  flush();
  return words;
}

}  // namespace attnscope
