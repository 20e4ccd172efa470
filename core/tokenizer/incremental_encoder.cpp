#include "tokenizer/incremental_encoder.h"

#include <algorithm>

namespace attnscope {
namespace {

// ASCII whitespace only: such a byte is never inside a UTF-8 sequence, so a cut after it never
// splits a character.
bool is_space_byte(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t common_prefix(std::string_view a, std::string_view b) {
  return static_cast<size_t>(
      std::mismatch(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(std::min(a.size(), b.size())), b.begin()).first -
      a.begin());
}

// Common suffix of a and b that does not reach into their first `skip` bytes.
size_t common_suffix(std::string_view a, std::string_view b, size_t skip) {
  const size_t most = std::min(a.size(), b.size()) - skip;
  size_t n = 0;
  while (n < most && a[a.size() - 1 - n] == b[b.size() - 1 - n]) ++n;
  return n;
}

}  // namespace

Encoding IncrementalEncoder::encode(const Tokenizer& tokenizer, std::string_view text, size_t max_length) {
  if (!tokenizer.splits_after_whitespace()) {
    last_tokenised_ = text.size();
    return tokenizer.encode(text, max_length);
  }
  if (&tokenizer != tokenizer_) {
    tokenizer_ = &tokenizer;
    text_.clear();
    pieces_.clear();
  }
  const std::string_view old = text_;
  const size_t prefix = common_prefix(old, text), suffix = common_suffix(old, text, prefix);
  // The stretch tokenised again: from just after the last whitespace before the edit to just
  // after the first whitespace after it (or the text's ends), in the old text and the new.
  size_t begin = prefix;
  while (begin > 0 && !is_space_byte(text[begin - 1])) --begin;
  size_t old_end = old.size() - suffix;
  while (old_end < old.size() && !is_space_byte(old[old_end])) ++old_end;
  old_end = std::min(old.size(), old_end + 1);
  const size_t end = text.size() - (old.size() - old_end);
  try {
    retokenise(tokenizer, text, begin, end, old_end);
  } catch (const std::exception&) {  // invalid UTF-8: the whole text's own error (where it is in the text)
    tokenizer_ = nullptr;
    last_tokenised_ = text.size();
    return tokenizer.encode(text, max_length);
  }
  text_.assign(text);

  // Only the pieces that can be kept are wrapped; the count of the rest is added after.
  const size_t keep = std::min(pieces_.size(), max_length);
  Encoding e = tokenizer.wrap(std::vector<Token>(pieces_.begin(), pieces_.begin() + static_cast<std::ptrdiff_t>(keep)),
                              max_length);
  e.full_length += pieces_.size() - keep;
  e.truncated = e.full_length > max_length;
  return e;
}

void IncrementalEncoder::retokenise(const Tokenizer& tokenizer, std::string_view text, size_t begin, size_t end,
                                    size_t old_end) {
  std::vector<Token> fresh = tokenizer.tokenize(text.substr(begin, end - begin));
  for (Token& t : fresh) t.begin += static_cast<uint32_t>(begin), t.end += static_cast<uint32_t>(begin);
  last_tokenised_ = end - begin;
  // No piece spans a whitespace byte, so the old pieces of [begin, old_end) are exactly those
  // that start there.
  const auto starts_before = [](const Token& t, size_t at) { return t.begin < at; };
  const auto first = std::lower_bound(pieces_.begin(), pieces_.end(), begin, starts_before);
  const auto last = std::lower_bound(first, pieces_.end(), old_end, starts_before);
  const auto at = static_cast<size_t>(first - pieces_.begin()), removed = static_cast<size_t>(last - first);
  if (fresh.size() > removed)
    pieces_.insert(last, fresh.size() - removed, Token{});
  else
    pieces_.erase(first + static_cast<std::ptrdiff_t>(fresh.size()), last);
  std::move(fresh.begin(), fresh.end(), pieces_.begin() + static_cast<std::ptrdiff_t>(at));
  // The pieces after the stretch keep their text and move with it (unsigned arithmetic wraps
  // to the right offsets when the text got shorter).
  const auto shift = static_cast<uint32_t>(end - old_end);
  for (size_t k = at + fresh.size(); k < pieces_.size(); ++k) pieces_[k].begin += shift, pieces_[k].end += shift;
}

}  // namespace attnscope
