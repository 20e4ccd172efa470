#include "tokenizer/text_normalizer.h"

#include <utf8proc.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/base64.h"
#include "base/json_fields.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/char_classes.h"

namespace attnscope {
namespace {

// Each character's decomposition (canonical, or compatibility too), all with its source range;
// each run of combining marks then put in canonical order.
CharString decompose(const CharString& chars, bool compatibility) {
  CharString out;
  utf8proc_int32_t buffer[32];
  const auto options = static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | (compatibility ? UTF8PROC_COMPAT : 0));
  for (const SourceChar& c : chars) {
    int last_boundclass = 0;
    const auto n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(c.cp), buffer, 32, options, &last_boundclass);
    if (n < 0 || n > 32) {
      out.push_back(c);
      continue;
    }
    for (utf8proc_ssize_t k = 0; k < n; ++k) out.push_back({static_cast<char32_t>(buffer[k]), c.begin, c.end});
  }
  for (size_t i = 0; i < out.size();) {
    size_t j = i;
    while (j < out.size() && combining_class(out[j].cp) != 0) ++j;
    if (j - i > 1)
      std::stable_sort(
          out.begin() + static_cast<std::ptrdiff_t>(i), out.begin() + static_cast<std::ptrdiff_t>(j),
          [](const SourceChar& a, const SourceChar& b) { return combining_class(a.cp) < combining_class(b.cp); });
    i = j == i ? i + 1 : j;
  }
  return out;
}

// Composition by runs of the text that start at a character of combining class 0. A run left as
// it was keeps its ranges; in a run that shrank the first character made takes the first source
// character's range and what follows takes the ranges of the run's last characters (a composed
// character's marks are gone, as in the reference's alignments).
CharString compose(const CharString& chars, bool compatibility) {
  CharString out;
  for (size_t i = 0; i < chars.size();) {
    size_t j = i + 1;
    while (j < chars.size() && combining_class(chars[j].cp) != 0) ++j;
    if (j == i + 1 && chars[i].cp < 0x80) {  // ASCII alone is its own NFC and NFKC: no call, no allocation
      out.push_back(chars[i++]);
      continue;
    }
    const std::string run = encode_utf8(chars.data() + i, chars.data() + j);
    utf8proc_uint8_t* composed = nullptr;
    const auto len = utf8proc_map(
        reinterpret_cast<const utf8proc_uint8_t*>(run.data()), static_cast<utf8proc_ssize_t>(run.size()), &composed,
        static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | (compatibility ? UTF8PROC_COMPAT : 0)));
    if (len < 0) throw Error("text cannot be normalised: " + std::string(utf8proc_errmsg(len)));
    const CharString made =
        decode_utf8(std::string_view(reinterpret_cast<const char*>(composed), static_cast<size_t>(len)));
    std::free(composed);
    const size_t in = j - i;
    for (size_t k = 0; k < made.size(); ++k) {
      // More made than given (a compatibility expansion such as "..." for U+2026): the extra
      // characters stand on the last given one, as insertions do in the reference.
      const SourceChar& from = made.size() >= in ? chars[i + std::min(k, in - 1)]
                               : k == 0          ? chars[i]
                                                 : chars[j - (made.size() - k)];
      out.push_back({made[k].cp, from.begin, from.end});
    }
    i = j;
  }
  return out;
}

bool is_mark(char32_t cp) {
  const auto c = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_MC || c == UTF8PROC_CATEGORY_ME;
}

std::string string_of(const nlohmann::json& j, const char* key, const std::string& source) {
  if (!j.contains(key) || !j[key].is_string()) throw Error(source + ": the normalizer needs a string \"" + key + "\"");
  return j[key].get<std::string>();
}

}  // namespace

// "c{n,}": one literal character (not a regular-expression operator), at least n times.
void TextNormalizer::read_repeat(const std::string& regex, Step& s, const std::string& source) {
  const auto refuse = [&] {
    return Error(source + ": the Replace pattern /" + regex +
                 "/ is not supported (attnscope reads a character repeated, such as / {2,}/)");
  };
  const size_t brace = regex.find('{');
  if (brace == std::string::npos || !regex.ends_with(",}") || brace + 3 > regex.size()) throw refuse();
  CharString c;
  try {
    c = decode_utf8(std::string_view(regex).substr(0, brace));
  } catch (const Error&) {
    throw refuse();
  }
  const bool operator_char =
      c.size() == 1 && c[0].cp < 0x80 &&
      std::string_view("\\^$.|?*+()[]{}").find(static_cast<char>(c[0].cp)) != std::string_view::npos;
  if (c.size() != 1 || operator_char) throw refuse();
  const std::string count = regex.substr(brace + 1, regex.size() - brace - 3);
  if (count.empty() || count.size() > 4 || count.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(count) == 0)
    throw refuse();
  s.repeated = c[0].cp;
  s.at_least = std::stoul(count);
}

TextNormalizer TextNormalizer::from_json(const nlohmann::json& json, const std::string& source) {
  TextNormalizer n;
  if (!json.is_null()) n.add(json, source);
  return n;
}

void TextNormalizer::add(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
    throw Error(source + ": a normalizer has no \"type\"");
  const std::string type = j["type"].get<std::string>();
  Step s;
  if (type == "Sequence") {
    if (!j.contains("normalizers") || !j["normalizers"].is_array())
      throw Error(source + ": a Sequence normalizer needs a \"normalizers\" list");
    for (const auto& inner : j["normalizers"]) add(inner, source);
    return;
  }
  if (type == "NFC")
    s.kind = Kind::Nfc;
  else if (type == "NFKC")
    s.kind = Kind::Nfkc;
  else if (type == "NFD")
    s.kind = Kind::Nfd;
  else if (type == "NFKD")
    s.kind = Kind::Nfkd;
  else if (type == "Lowercase")
    s.kind = Kind::Lowercase;
  else if (type == "StripAccents")
    s.kind = Kind::StripAccents;
  else if (type == "Strip") {
    s.kind = Kind::Strip;
    s.left = json_optional<bool>(j, "strip_left", true, source + ": Strip");
    s.right = json_optional<bool>(j, "strip_right", true, source + ": Strip");
  } else if (type == "Prepend") {
    s.kind = Kind::Prepend;
    s.content = string_of(j, "prepend", source);
  } else if (type == "Replace") {
    s.kind = Kind::Replace;
    s.content = string_of(j, "content", source);
    const auto& pattern = j.value("pattern", nlohmann::json());
    if (pattern.contains("String") && pattern["String"].is_string() && !pattern["String"].get<std::string>().empty()) {
      s.literal = pattern["String"].get<std::string>();
    } else if (pattern.contains("Regex") && pattern["Regex"].is_string()) {
      read_repeat(pattern["Regex"].get<std::string>(), s, source);
    } else {
      throw Error(source + ": a Replace normalizer needs a non-empty String or a Regex pattern");
    }
  } else if (type == "Precompiled") {
    s.kind = Kind::Precompiled;
    const std::string encoded = string_of(j, "precompiled_charsmap", source);
    s.charsmap = std::make_shared<const PrecompiledCharsmap>(base64_decode(encoded), source);
  } else {
    throw Error(source + ": normalizer \"" + type +
                "\" is not supported (supported: NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip, "
                "Replace, Prepend, Precompiled, Sequence)");
  }
  steps_.push_back(std::move(s));
}

CharString TextNormalizer::replace(const CharString& chars, const Step& step) {
  // Matched in the UTF-8 text; the replacement's characters take the range of the last character
  // they replace (the reference's alignment).
  std::vector<std::pair<size_t, size_t>> matches;  // character ranges
  if (step.repeated) {
    for (size_t i = 0; i < chars.size();) {
      size_t j = i;
      while (j < chars.size() && chars[j].cp == step.repeated) ++j;
      if (j - i >= step.at_least) matches.push_back({i, j});
      i = j > i ? j : i + 1;
    }
  } else {
    const CharString pattern = decode_utf8(step.literal);
    for (size_t i = 0; i + pattern.size() <= chars.size();) {
      bool same = true;
      for (size_t k = 0; k < pattern.size() && same; ++k) same = chars[i + k].cp == pattern[k].cp;
      if (same) matches.push_back({i, i + pattern.size()});
      i += same ? pattern.size() : 1;
    }
  }
  if (matches.empty()) return chars;
  const CharString content = decode_utf8(step.content);
  CharString out;
  size_t next = 0;
  for (const auto& [first, last] : matches) {
    out.insert(out.end(), chars.begin() + static_cast<std::ptrdiff_t>(next),
               chars.begin() + static_cast<std::ptrdiff_t>(first));
    for (const SourceChar& c : content) out.push_back({c.cp, chars[last - 1].begin, chars[last - 1].end});
    next = last;
  }
  out.insert(out.end(), chars.begin() + static_cast<std::ptrdiff_t>(next), chars.end());
  return out;
}

TextNormalizer TextNormalizer::bert(const NormalizerOptions& options) {
  TextNormalizer n;
  Step step;
  step.kind = Kind::Bert;
  step.bert = options;
  n.steps_.push_back(std::move(step));
  return n;
}

CharString TextNormalizer::apply(CharString chars) const {
  for (const Step& s : steps_) {
    if (chars.empty()) break;
    switch (s.kind) {
      case Kind::Nfc: chars = compose(chars, false); break;
      case Kind::Nfkc: chars = compose(chars, true); break;
      case Kind::Nfd: chars = decompose(chars, false); break;
      case Kind::Nfkd: chars = decompose(chars, true); break;
      case Kind::Lowercase: {
        CharString out;
        std::u32string lower;
        for (const SourceChar& c : chars) {
          lower.clear();
          append_lowercase(lower, c.cp);
          for (char32_t cp : lower) out.push_back({cp, c.begin, c.end});
        }
        chars = std::move(out);
        break;
      }
      case Kind::StripAccents: std::erase_if(chars, [](const SourceChar& c) { return is_mark(c.cp); }); break;
      case Kind::Strip: {
        size_t a = 0, b = chars.size();
        if (s.left)
          while (a < b && is_unicode_space(chars[a].cp)) ++a;
        if (s.right)
          while (b > a && is_unicode_space(chars[b - 1].cp)) --b;
        chars =
            CharString(chars.begin() + static_cast<std::ptrdiff_t>(a), chars.begin() + static_cast<std::ptrdiff_t>(b));
        break;
      }
      case Kind::Replace: chars = replace(chars, s); break;
      case Kind::Prepend: {
        CharString added;
        for (const SourceChar& c : decode_utf8(s.content))
          added.push_back({c.cp, chars.front().begin, chars.front().end});
        chars.insert(chars.begin(), added.begin(), added.end());
        break;
      }
      case Kind::Precompiled: chars = s.charsmap->normalize(chars); break;
      case Kind::Bert: chars = normalize_bert(chars, s.bert); break;
    }
  }
  return chars;
}

}  // namespace attnscope
