#include "tokenizer/unicode_regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "base/error.h"

namespace attnscope {
namespace {

// Backtracking steps allowed in one match attempt, and the depth of its backtracking: far above
// what a tokenizer's pattern needs (tens per character), far below a hang (milliseconds).
constexpr uint32_t kMatchLimit = 1'000'000;
constexpr uint32_t kDepthLimit = 10'000;

std::string pcre2_message(int code) {
  PCRE2_UCHAR message[256];
  pcre2_get_error_message(code, message, sizeof message);
  return reinterpret_cast<const char*>(message);
}

size_t utf8_length(unsigned char lead) { return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

}  // namespace

struct UnicodeRegex::Compiled {
  pcre2_code* code = nullptr;
  pcre2_match_context* context = nullptr;
  ~Compiled() {
    pcre2_match_context_free(context);
    pcre2_code_free(code);
  }
};

UnicodeRegex::UnicodeRegex(const std::string& pattern, const std::string& source)
    : compiled_(std::make_unique<Compiled>()), source_(source) {
  int code = 0;
  PCRE2_SIZE offset = 0;
  // UTF: the pattern and texts are UTF-8; UCP: \s, \w, \d and the POSIX classes by Unicode
  // properties, as Oniguruma (the tokenizers library's engine) reads them over UTF-8.
  compiled_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP,
                                  &code, &offset, nullptr);
  if (!compiled_->code)
    throw Error(source + ": the pattern " + pattern + " does not compile at character " + std::to_string(offset) +
                ": " + pcre2_message(code));
  compiled_->context = pcre2_match_context_create(nullptr);
  pcre2_set_match_limit(compiled_->context, kMatchLimit);
  pcre2_set_depth_limit(compiled_->context, kDepthLimit);
}

UnicodeRegex::~UnicodeRegex() = default;
UnicodeRegex::UnicodeRegex(UnicodeRegex&&) noexcept = default;
UnicodeRegex& UnicodeRegex::operator=(UnicodeRegex&&) noexcept = default;

std::vector<std::pair<size_t, size_t>> UnicodeRegex::find_all(std::string_view text) const {
  std::vector<std::pair<size_t, size_t>> matches;
  std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> data(
      pcre2_match_data_create_from_pattern(compiled_->code, nullptr), pcre2_match_data_free);
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t at = 0;
  while (at < text.size()) {
    // The texts are UTF-8 made by the tokenizer itself: checked once, not at every start.
    const uint32_t options = at == 0 ? 0 : PCRE2_NO_UTF_CHECK;
    const int found = pcre2_match(compiled_->code, subject, text.size(), at, options, data.get(), compiled_->context);
    if (found == PCRE2_ERROR_NOMATCH) break;
    if (found < 0)
      throw Error(source_ + ": the pre-tokenizer's pattern could not be matched on this text (" + pcre2_message(found) +
                  ")");
    const PCRE2_SIZE* range = pcre2_get_ovector_pointer(data.get());
    const auto first = static_cast<size_t>(range[0]), last = static_cast<size_t>(range[1]);
    if (last > first) {
      matches.emplace_back(first, last);
      at = last;
    } else {
      if (first >= text.size()) break;
      at = first + utf8_length(static_cast<unsigned char>(text[first]));
    }
  }
  return matches;
}

}  // namespace attnscope
