#include "tokenizer/byte_level.h"

#include <utf8proc.h>

namespace attnscope {
namespace {

bool is_letter(char32_t cp) {
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(cp))) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO: return true;
    default: return false;
  }
}

bool is_number(char32_t cp) {
  const auto c = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return c == UTF8PROC_CATEGORY_ND || c == UTF8PROC_CATEGORY_NL || c == UTF8PROC_CATEGORY_NO;
}

enum class Kind { Letter, Number, Space, Other };

Kind kind_of(char32_t cp) {
  if (is_unicode_space(cp)) return Kind::Space;
  if (is_letter(cp)) return Kind::Letter;
  if (is_number(cp)) return Kind::Number;
  return Kind::Other;
}

// 's 't 'm 'd 're 've 'll at i (ASCII, lower case, as in the pattern): their length, else 0.
size_t contraction_at(const CharString& c, size_t i) {
  if (c[i].cp != U'\'' || i + 1 >= c.size()) return 0;
  const char32_t a = c[i + 1].cp, b = i + 2 < c.size() ? c[i + 2].cp : 0;
  if (a == U's' || a == U't' || a == U'm' || a == U'd') return 2;
  if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) return 3;
  return 0;
}

}  // namespace

bool is_unicode_space(char32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

const std::array<char32_t, 256>& byte_level_chars() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      t[static_cast<size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
    }
    return t;
  }();
  return table;
}

std::vector<CharRange> split_gpt2_words(const CharString& c) {
  std::vector<CharRange> words;
  const size_t n = c.size();
  const auto run = [&](size_t from, Kind kind) {
    while (from < n && kind_of(c[from].cp) == kind) ++from;
    return from;
  };
  for (size_t i = 0; i < n;) {
    if (const size_t len = contraction_at(c, i)) {
      words.push_back({i, i + len});
      i += len;
      continue;
    }
    // " ?X+" for letters, numbers and other non-space characters: an optional plain space first.
    const size_t body = c[i].cp == U' ' && i + 1 < n && kind_of(c[i + 1].cp) != Kind::Space ? i + 1 : i;
    const Kind kind = kind_of(c[body].cp);
    if (kind != Kind::Space) {
      const size_t end = run(body, kind);
      words.push_back({i, end});
      i = end;
      continue;
    }
    // "\s+(?!\S)|\s+": a run of spaces leaves its last one to the word that follows it.
    size_t end = run(i, Kind::Space);
    if (end < n && end - i > 1) --end;
    words.push_back({i, end});
    i = end;
  }
  return words;
}

CharString to_byte_level(const SourceChar* first, const SourceChar* last) {
  const auto& table = byte_level_chars();
  CharString out;
  std::string bytes;
  for (const SourceChar* ch = first; ch != last; ++ch) {
    bytes.clear();
    append_utf8(bytes, ch->cp);
    for (unsigned char b : bytes) out.push_back({table[b], ch->begin, ch->end});
  }
  return out;
}

}  // namespace attnscope
