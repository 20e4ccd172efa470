#pragma once
// A regular expression with Unicode properties (\p{L}, \p{N}, look-ahead, (?i:...)) over UTF-8,
// for the Split patterns of tokenizer.json (Llama 3, Qwen). The tokenizers library compiles them
// with Oniguruma; here PCRE2 does, in UTF and Unicode-property mode, which reads these patterns
// alike (the trained fixtures check it). Oniguruma's library was tried first and left: it exports
// the POSIX names regcomp and regexec, which took the place of the C library's for every library
// in the process (Mesa's configuration parser deadlocked in them under AddressSanitizer). A
// pattern comes from a downloaded file, so every match has a bound on its backtracking: past it,
// one line says so instead of the search running on.
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnscope {

class UnicodeRegex {
 public:
  // Throws attnscope::Error with PCRE2's message when the pattern does not compile.
  UnicodeRegex(const std::string& pattern, const std::string& source);
  ~UnicodeRegex();
  UnicodeRegex(UnicodeRegex&&) noexcept;
  UnicodeRegex& operator=(UnicodeRegex&&) noexcept;

  // Every non-empty match, left to right and not overlapping, as byte ranges [first, last) of
  // `text` (valid UTF-8). An empty match moves the search one character on.
  std::vector<std::pair<size_t, size_t>> find_all(std::string_view text) const;

 private:
  struct Compiled;
  std::unique_ptr<Compiled> compiled_;
  std::string source_;
};

}  // namespace attnscope
