#include "compare/token_alignment.h"

#include <algorithm>
#include <string>

namespace attnscope {
namespace {

bool same_tokens(const Encoding& a, const Encoding& b) {
  return a.size() == b.size() &&
         std::equal(a.tokens.begin(), a.tokens.end(), b.tokens.begin(),
                    [](const Token& x, const Token& y) { return x.id == y.id && x.text == y.text; });
}

// What a token is compared by. For one text: its bytes, or for a token without bytes whether it
// comes before the first text token; for two texts: its vocabulary entry.
std::vector<std::string> keys(const Encoding& e, bool by_bytes) {
  std::vector<std::string> out;
  bool text_seen = false;
  for (const Token& t : e.tokens) {
    if (!by_bytes) {
      out.push_back(t.special ? "\x01special:" + t.text : t.text);
      continue;
    }
    const bool has_bytes = t.end > t.begin;
    text_seen = text_seen || has_bytes;
    out.push_back(has_bytes ? std::to_string(t.begin) + ":" + std::to_string(t.end)
                            : (text_seen ? "\x01end" : "\x01start"));
  }
  return out;
}

// The longest common subsequence of two key lists, as matched positions (O(n m), n, m <= 8192 tokens).
TokenAlignment common_subsequence(const std::vector<std::string>& x, const std::vector<std::string>& y) {
  const size_t n = x.size(), m = y.size();
  std::vector<int32_t> length((n + 1) * (m + 1), 0);  // length[i][j]: LCS of x[i..] and y[j..]
  const auto at = [&](size_t i, size_t j) -> int32_t& { return length[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;) at(i, j) = x[i] == y[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  TokenAlignment out;
  for (size_t i = 0, j = 0; i < n && j < m;) {
    if (x[i] == y[j]) {
      out.a.push_back(static_cast<int64_t>(i++));
      out.b.push_back(static_cast<int64_t>(j++));
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

}  // namespace

TokenAlignment align_tokens(const Encoding& a, std::string_view text_a, const Encoding& b, std::string_view text_b) {
  if (same_tokens(a, b)) {
    TokenAlignment out;
    out.identical = true;
    for (size_t i = 0; i < a.size(); ++i)
      out.a.push_back(static_cast<int64_t>(i)), out.b.push_back(static_cast<int64_t>(i));
    return out;
  }
  const bool one_text = text_a == text_b;
  return common_subsequence(keys(a, one_text), keys(b, one_text));
}

}  // namespace attnscope
