#include "tokenizer/unicode_regex.h"

#include <oniguruma.h>

#include <mutex>

#include "base/error.h"

namespace attnscope {
namespace {

// Backtracking steps allowed in one attempt at a position, and in one search over the text: far
// above what a tokenizer's pattern needs (tens per character), far below a hang (milliseconds).
constexpr unsigned long kRetryLimitInMatch = 1'000'000;
constexpr unsigned long kRetryLimitInSearch = 2'000'000;

void initialise_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    OnigEncoding encodings[] = {ONIG_ENCODING_UTF8};
    onig_initialize(encodings, 1);
  });
}

std::string onig_message(int code, OnigErrorInfo* info) {
  OnigUChar message[ONIG_MAX_ERROR_MESSAGE_LEN];
  onig_error_code_to_str(message, code, info);
  return reinterpret_cast<const char*>(message);
}

size_t utf8_length(unsigned char lead) { return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

}  // namespace

struct UnicodeRegex::Compiled {
  OnigRegex regex = nullptr;
  ~Compiled() {
    if (regex) onig_free(regex);
  }
};

UnicodeRegex::UnicodeRegex(const std::string& pattern, const std::string& source)
    : compiled_(std::make_unique<Compiled>()), source_(source) {
  initialise_once();
  OnigErrorInfo info{};
  const auto* p = reinterpret_cast<const OnigUChar*>(pattern.data());
  const int code =
      onig_new(&compiled_->regex, p, p + pattern.size(), ONIG_OPTION_NONE, ONIG_ENCODING_UTF8, ONIG_SYNTAX_RUBY, &info);
  if (code != ONIG_NORMAL) {
    compiled_->regex = nullptr;
    throw Error(source + ": the pattern " + pattern + " does not compile: " + onig_message(code, &info));
  }
}

UnicodeRegex::~UnicodeRegex() = default;
UnicodeRegex::UnicodeRegex(UnicodeRegex&&) noexcept = default;
UnicodeRegex& UnicodeRegex::operator=(UnicodeRegex&&) noexcept = default;

std::vector<std::pair<size_t, size_t>> UnicodeRegex::find_all(std::string_view text) const {
  std::vector<std::pair<size_t, size_t>> matches;
  const auto* begin = reinterpret_cast<const OnigUChar*>(text.data());
  const auto* end = begin + text.size();
  std::unique_ptr<OnigRegion, void (*)(OnigRegion*)> region(onig_region_new(),
                                                            [](OnigRegion* r) { onig_region_free(r, 1); });
  std::unique_ptr<OnigMatchParam, void (*)(OnigMatchParam*)> param(onig_new_match_param(), onig_free_match_param);
  onig_initialize_match_param(param.get());
  onig_set_retry_limit_in_match_of_match_param(param.get(), kRetryLimitInMatch);
  onig_set_retry_limit_in_search_of_match_param(param.get(), kRetryLimitInSearch);
  size_t at = 0;
  while (at < text.size()) {
    const int found = onig_search_with_param(compiled_->regex, begin, end, begin + at, end, region.get(),
                                             ONIG_OPTION_NONE, param.get());
    if (found == ONIG_MISMATCH) break;
    if (found < 0)
      throw Error(source_ + ": the pre-tokenizer's pattern could not be matched on this text (" +
                  onig_message(found, nullptr) + ")");
    const auto first = static_cast<size_t>(region->beg[0]), last = static_cast<size_t>(region->end[0]);
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
