#include "tokenizer/char_classes.h"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <iterator>

#include "tokenizer/reference_unicode_exceptions.h"

namespace attnscope {
namespace {

utf8proc_category_t category(char32_t cp) { return utf8proc_category(static_cast<utf8proc_int32_t>(cp)); }

bool in_ranges(const CodepointRange* first, const CodepointRange* last, char32_t cp) {
  const auto* it = std::upper_bound(first, last, cp, [](char32_t c, const CodepointRange& r) { return c < r.first; });
  return it != first && cp <= std::prev(it)->last;
}

template <size_t N>
bool in_ranges(const CodepointRange (&table)[N], char32_t cp) {
  return in_ranges(std::begin(table), std::end(table), cp);
}

// A class's answers for the ASCII characters (most of any text), worked out once by the class's
// own test: each character then costs a lookup instead of utf8proc's tables (a third of the
// tokenizer's time before).
using AsciiAnswers = std::array<bool, 128>;

AsciiAnswers ascii_answers(bool (*test)(char32_t)) {
  AsciiAnswers answers{};
  for (char32_t cp = 0; cp < 128; ++cp) answers[cp] = test(cp);
  return answers;
}

bool removed_control(char32_t cp) {
  if (cp == 0 || cp == 0xFFFD) return true;
  if (cp == U'\t' || cp == U'\n' || cp == U'\r') return false;
  const auto c = category(cp);
  const bool other = c == UTF8PROC_CATEGORY_CC || c == UTF8PROC_CATEGORY_CF || c == UTF8PROC_CATEGORY_CO;
  return other != in_ranges(kControlExceptions, cp);
}

bool bert_whitespace(char32_t cp) {
  if (cp == U'\t' || cp == U'\n' || cp == U'\r' || cp == U' ') return true;
  const auto c = category(cp);
  return c == UTF8PROC_CATEGORY_ZS || c == UTF8PROC_CATEGORY_ZL || c == UTF8PROC_CATEGORY_ZP;
}

bool bert_punctuation(char32_t cp) {
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126))
    return true;
  const auto c = category(cp);
  const bool punct = c >= UTF8PROC_CATEGORY_PC && c <= UTF8PROC_CATEGORY_PO;
  return punct != in_ranges(kPunctuationExceptions, cp);
}

template <bool (*Test)(char32_t)>
bool answer(char32_t cp) {
  static const AsciiAnswers ascii = ascii_answers(Test);
  return cp < 128 ? ascii[cp] : Test(cp);
}

}  // namespace

bool is_removed_control(char32_t cp) { return answer<removed_control>(cp); }
bool is_bert_whitespace(char32_t cp) { return answer<bert_whitespace>(cp); }
bool is_bert_punctuation(char32_t cp) { return answer<bert_punctuation>(cp); }

bool is_cjk_ideograph(char32_t cp) {
  // The blocks BERT's reference treats as CJK (its ranges, not the full Unicode Ideographic set).
  static constexpr CodepointRange kCjk[] = {
      {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0xF900, 0xFAFF},   {0x20000, 0x2A6DF},
      {0x2A700, 0x2B73F}, {0x2B740, 0x2B81F}, {0x2B920, 0x2CEAF}, {0x2F800, 0x2FA1F},
  };
  return cp >= 0x3400 && in_ranges(kCjk, cp);
}

bool is_nonspacing_mark(char32_t cp) {
  return (category(cp) == UTF8PROC_CATEGORY_MN) != in_ranges(kNonspacingMarkExceptions, cp);
}

int combining_class(char32_t cp) { return utf8proc_get_property(static_cast<utf8proc_int32_t>(cp))->combining_class; }

void append_canonical_decomposition(std::u32string& out, char32_t cp) {
  if (in_ranges(kNotDecomposedByReference, cp)) {
    out.push_back(cp);
    return;
  }
  utf8proc_int32_t buf[8];  // the longest canonical decomposition has 4 code points
  utf8proc_int32_t last_boundclass = 0;
  const auto n =
      utf8proc_decompose_char(static_cast<utf8proc_int32_t>(cp), buf, 8, UTF8PROC_DECOMPOSE, &last_boundclass);
  if (n <= 0 || n > 8) {
    out.push_back(cp);
    return;
  }
  for (utf8proc_ssize_t i = 0; i < n; ++i) out.push_back(static_cast<char32_t>(buf[i]));
}

void append_lowercase(std::u32string& out, char32_t cp) {
  if (cp == 0x130) {  // the one code point whose full lower-case mapping is two code points
    out.push_back(U'i');
    out.push_back(0x307);
    return;
  }
  const auto* end = std::end(kLowercaseExceptions);
  const auto* it = std::lower_bound(std::begin(kLowercaseExceptions), end, cp,
                                    [](const CodepointMapping& m, char32_t c) { return m.from < c; });
  if (it != end && it->from == cp) {
    out.push_back(it->to);
    return;
  }
  out.push_back(static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp))));
}

}  // namespace attnscope
