#include "tokenizer/normalizer.h"

#include <algorithm>
#include <string>

#include "tokenizer/char_classes.h"

namespace attnscope {
namespace {

CharString clean_and_space_cjk(const CharString& text, const NormalizerOptions& options) {
  CharString out;
  out.reserve(text.size());
  for (const SourceChar& c : text) {
    if (options.clean_text && is_removed_control(c.cp)) continue;
    if (options.clean_text && is_bert_whitespace(c.cp)) {
      out.push_back({U' ', c.begin, c.end});
    } else if (options.handle_cjk && is_cjk_ideograph(c.cp)) {
      out.push_back({U' ', c.begin, c.begin});
      out.push_back(c);
      out.push_back({U' ', c.end, c.end});
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Each character becomes the code points `expand` appends for it, all with its byte range; ASCII
// characters go through `ascii` instead (the common case, without the Unicode tables).
template <typename Ascii, typename Expand>
CharString map_chars(const CharString& text, Ascii ascii, Expand expand) {
  CharString out;
  out.reserve(text.size());
  std::u32string parts;
  for (const SourceChar& c : text) {
    if (c.cp < 0x80) {
      out.push_back({ascii(c.cp), c.begin, c.end});
      continue;
    }
    parts.clear();
    expand(parts, c.cp);
    for (char32_t p : parts) out.push_back({p, c.begin, c.end});
  }
  return out;
}

// NFD: decompose every character, then put each run of combining marks in canonical order
// (a stable sort by combining class), then drop the non-spacing marks.
CharString strip_accents(const CharString& text) {
  CharString decomposed = map_chars(
      text, [](char32_t cp) { return cp; }, append_canonical_decomposition);
  for (size_t i = 0; i < decomposed.size();) {
    size_t j = i;
    while (j < decomposed.size() && decomposed[j].cp >= 0x300 && combining_class(decomposed[j].cp) != 0) ++j;
    if (j - i > 1)
      std::stable_sort(
          decomposed.begin() + static_cast<std::ptrdiff_t>(i), decomposed.begin() + static_cast<std::ptrdiff_t>(j),
          [](const SourceChar& a, const SourceChar& b) { return combining_class(a.cp) < combining_class(b.cp); });
    i = (j == i) ? i + 1 : j;
  }
  std::erase_if(decomposed, [](const SourceChar& c) { return c.cp >= 0x300 && is_nonspacing_mark(c.cp); });
  return decomposed;
}

CharString lowercase(const CharString& text) {
  return map_chars(
      text, [](char32_t cp) { return (cp >= U'A' && cp <= U'Z') ? cp + 32 : cp; }, append_lowercase);
}

}  // namespace

CharString normalize_bert(const CharString& text, const NormalizerOptions& options) {
  CharString out = clean_and_space_cjk(text, options);
  if (options.strip_accents) out = strip_accents(out);
  if (options.lowercase) out = lowercase(out);
  return out;
}

}  // namespace attnscope
