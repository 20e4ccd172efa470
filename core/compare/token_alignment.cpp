#include "compare/token_alignment.h"

#include <algorithm>
#include <string>

#include "base/byte_size.h"
#include "base/error.h"

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

// The table of the longest common subsequence: 4 bytes a cell, (k + 1) (l + 1) cells for k and l
// keys; past this many (1 GiB), refused in one line.
constexpr size_t kMostAlignmentCells = size_t{1} << 28;

// The longest common subsequence of x[first_x, last_x) and y[first_y, last_y), its matched
// positions appended to `out`.
void align_between(const std::vector<std::string>& x, size_t first_x, size_t last_x, const std::vector<std::string>& y,
                   size_t first_y, size_t last_y, TokenAlignment& out) {
  const size_t n = last_x - first_x, m = last_y - first_y;
  if (n == 0 || m == 0) return;
  if ((n + 1) * (m + 1) > kMostAlignmentCells) {
    throw Error("the two texts differ over " + std::to_string(n) + " and " + std::to_string(m) +
                " tokens: aligning them would take " + byte_size(static_cast<double>((n + 1) * (m + 1)) * 4) +
                "; compare texts that differ over less");
  }
  std::vector<int32_t> length((n + 1) * (m + 1), 0);  // length[i][j]: LCS of x[i..] and y[j..] (from first)
  const auto at = [&](size_t i, size_t j) -> int32_t& { return length[i * (m + 1) + j]; };
  const auto same = [&](size_t i, size_t j) { return x[first_x + i] == y[first_y + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;) at(i, j) = same(i, j) ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  for (size_t i = 0, j = 0; i < n && j < m;) {
    if (same(i, j)) {
      out.a.push_back(static_cast<int64_t>(first_x + i++));
      out.b.push_back(static_cast<int64_t>(first_y + j++));
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      ++i;
    } else {
      ++j;
    }
  }
}

// The longest common subsequence of two key lists, as matched positions. The keys both lists start
// and end with match each other (some longest subsequence holds them), so the table spans only what
// lies between: an edit of a long text aligns in the size of the edit, not of the text.
TokenAlignment common_subsequence(const std::vector<std::string>& x, const std::vector<std::string>& y) {
  const size_t n = x.size(), m = y.size();
  size_t head = 0, tail = 0;
  while (head < n && head < m && x[head] == y[head]) ++head;
  while (tail < n - head && tail < m - head && x[n - 1 - tail] == y[m - 1 - tail]) ++tail;
  TokenAlignment out;
  for (size_t i = 0; i < head; ++i) out.a.push_back(static_cast<int64_t>(i)), out.b.push_back(static_cast<int64_t>(i));
  align_between(x, head, n - tail, y, head, m - tail, out);
  for (size_t k = tail; k > 0; --k)
    out.a.push_back(static_cast<int64_t>(n - k)), out.b.push_back(static_cast<int64_t>(m - k));
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
