#include "tokenizer/split_pre_tokenizer.h"

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json_fields.h"

namespace attnscope {
namespace {

SplitPreTokenizer::Behavior behavior_named(const std::string& behavior, const std::string& source) {
  using B = SplitPreTokenizer::Behavior;
  static const std::pair<const char*, B> names[] = {{"Removed", B::Removed},
                                                    {"Isolated", B::Isolated},
                                                    {"MergedWithPrevious", B::MergedWithPrevious},
                                                    {"MergedWithNext", B::MergedWithNext},
                                                    {"Contiguous", B::Contiguous}};
  for (const auto& [name, value] : names)
    if (behavior == name) return value;
  throw Error(source + ": Split behavior \"" + behavior + "\" is not one of Removed, Isolated, MergedWithPrevious, " +
              "MergedWithNext, Contiguous");
}

CharString slice(const CharString& chars, size_t first, size_t last) {
  return {chars.begin() + static_cast<std::ptrdiff_t>(first), chars.begin() + static_cast<std::ptrdiff_t>(last)};
}

}  // namespace

SplitPreTokenizer SplitPreTokenizer::from_json(const nlohmann::json& json, const std::string& source) {
  const nlohmann::json& pattern = json_member(json, "pattern");
  if (json.value("invert", false)) throw Error(source + ": a Split pre-tokenizer with invert is not supported");
  SplitPreTokenizer split;
  if (pattern.is_object() && pattern.contains("Regex") && pattern["Regex"].is_string()) {
    split.regex_ = std::make_shared<const UnicodeRegex>(pattern["Regex"].get<std::string>(), source);
  } else if (pattern.is_object() && pattern.contains("String") && pattern["String"].is_string()) {
    for (const SourceChar& c : decode_utf8(pattern["String"].get<std::string>())) split.literal_.push_back(c.cp);
    if (split.literal_.empty()) throw Error(source + ": a Split pre-tokenizer with an empty pattern");
  } else {
    throw Error(source + ": a Split pre-tokenizer needs a String or a Regex pattern");
  }
  split.behavior_ = behavior_named(json.value("behavior", std::string("Removed")), source);
  return split;
}

std::vector<std::pair<size_t, size_t>> SplitPreTokenizer::matches(const CharString& chars) const {
  std::vector<std::pair<size_t, size_t>> found;
  if (regex_) {
    // The regex runs on the chars' own UTF-8; byte offsets map back to chars.
    std::string text;
    std::vector<size_t> char_at;  // byte -> char
    for (size_t i = 0; i < chars.size(); ++i) {
      append_utf8(text, chars[i].cp);
      char_at.resize(text.size(), i);
    }
    char_at.push_back(chars.size());
    for (const auto& [first, last] : regex_->find_all(text)) found.emplace_back(char_at[first], char_at[last]);
    return found;
  }
  for (size_t i = 0; i + literal_.size() <= chars.size();) {
    bool match = true;
    for (size_t k = 0; match && k < literal_.size(); ++k) match = chars[i + k].cp == literal_[k];
    if (match) {
      found.emplace_back(i, i + literal_.size());
      i += literal_.size();
    } else {
      ++i;
    }
  }
  return found;
}

std::vector<CharString> SplitPreTokenizer::words(const CharString& chars) const {
  std::vector<CharString> words;
  const auto push = [&](CharString word) {
    if (!word.empty()) words.push_back(std::move(word));
  };
  CharString pending;          // MergedWithNext: the match that starts the next word
  size_t at = 0;               // the first char not yet in a word
  bool match_ends_at = false;  // Contiguous: the last word is a match that ends at `at`
  for (const auto& [first, last] : matches(chars)) {
    CharString gap = slice(chars, at, first);
    const CharString match = slice(chars, first, last);
    switch (behavior_) {
      case Behavior::Removed: push(std::move(gap)); break;
      case Behavior::Isolated:
        push(std::move(gap));
        words.push_back(match);
        break;
      case Behavior::MergedWithPrevious:
        gap.insert(gap.end(), match.begin(), match.end());
        words.push_back(std::move(gap));
        break;
      case Behavior::MergedWithNext:
        pending.insert(pending.end(), gap.begin(), gap.end());
        push(std::move(pending));
        pending = match;
        break;
      case Behavior::Contiguous:
        if (match_ends_at && gap.empty()) {
          words.back().insert(words.back().end(), match.begin(), match.end());
        } else {
          push(std::move(gap));
          words.push_back(match);
        }
        break;
    }
    match_ends_at = true;
    at = last;
  }
  CharString rest = slice(chars, at, chars.size());
  if (behavior_ == Behavior::MergedWithNext) {
    pending.insert(pending.end(), rest.begin(), rest.end());
    rest = std::move(pending);
  }
  push(std::move(rest));
  return words;
}

}  // namespace attnscope
