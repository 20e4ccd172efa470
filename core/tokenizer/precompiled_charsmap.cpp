#include "tokenizer/precompiled_charsmap.h"

#include <utf8proc.h>

#include <cstring>

#include "base/error.h"

namespace attnscope {
namespace {

// darts-clone's unit layout.
bool has_leaf(uint32_t u) { return ((u >> 8) & 1) != 0; }
uint32_t value_of(uint32_t u) { return u & ((1u << 31) - 1); }
uint32_t label_of(uint32_t u) { return u & ((1u << 31) | 0xFF); }
uint32_t offset_of(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

// The (char, change) script of one replaced part, as the reference writes it: the new characters
// in place of the old, extra ones marked as insertions, missing ones dropped after the last.
void replace_part(std::vector<std::pair<char32_t, int>>& script, size_t old_count, std::string_view replacement) {
  const CharString repl = decode_utf8(replacement);
  for (const SourceChar& c : repl) script.push_back({c.cp, 0});
  const long diff = static_cast<long>(repl.size()) - static_cast<long>(old_count);
  if (diff > 0)
    for (long k = 0; k < diff; ++k) script[script.size() - 1 - static_cast<size_t>(k)].second = 1;
  else if (diff < 0 && !script.empty())
    script.back().second += static_cast<int>(diff);
}

}  // namespace

PrecompiledCharsmap::PrecompiledCharsmap(const std::vector<std::byte>& blob, const std::string& source) {
  if (blob.size() < 4) throw Error(source + ": precompiled_charsmap is too short");
  uint32_t trie_bytes = 0;
  std::memcpy(&trie_bytes, blob.data(), 4);
  if (trie_bytes % 4 != 0 || trie_bytes > blob.size() - 4 || trie_bytes == 0)
    throw Error(source + ": precompiled_charsmap's trie size " + std::to_string(trie_bytes) + " does not fit its " +
                std::to_string(blob.size()) + " bytes");
  trie_.resize(trie_bytes / 4);
  std::memcpy(trie_.data(), blob.data() + 4, trie_bytes);
  replacements_.assign(reinterpret_cast<const char*>(blob.data()) + 4 + trie_bytes, blob.size() - 4 - trie_bytes);
}

std::optional<std::string_view> PrecompiledCharsmap::transform(std::string_view key) const {
  // darts-clone's common-prefix search, stopped at its first (shortest) result as the reference
  // does; a damaged trie walks out of its array and finds nothing.
  size_t pos = offset_of(trie_[0]);
  for (unsigned char c : key) {
    if (c == 0) break;
    pos ^= c;
    if (pos >= trie_.size()) return std::nullopt;
    const uint32_t unit = trie_[pos];
    if (label_of(unit) != c) return std::nullopt;
    pos ^= offset_of(unit);
    if (pos >= trie_.size()) return std::nullopt;
    if (has_leaf(unit)) {
      const size_t begin = value_of(trie_[pos]);
      if (begin >= replacements_.size()) return std::nullopt;
      const size_t end = replacements_.find('\0', begin);
      return std::string_view(replacements_)
          .substr(begin, (end == std::string::npos ? replacements_.size() : end) - begin);
    }
  }
  return std::nullopt;
}

CharString PrecompiledCharsmap::normalize(const CharString& chars) const {
  std::vector<std::pair<char32_t, int>> script;
  bool modified = false;
  utf8proc_int32_t state = 0;
  for (size_t i = 0; i < chars.size();) {
    size_t j = i + 1;  // the grapheme cluster [i, j)
    while (j < chars.size() && !utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(chars[j - 1].cp),
                                                                 static_cast<utf8proc_int32_t>(chars[j].cp), &state))
      ++j;
    const std::string cluster = encode_utf8(chars.data() + i, chars.data() + j);
    if (cluster.size() < 6)
      if (const auto norm = transform(cluster)) {
        replace_part(script, j - i, *norm);
        modified = true;
        i = j;
        continue;
      }
    for (size_t k = i; k < j; ++k) {
      std::string one;
      append_utf8(one, chars[k].cp);
      if (const auto norm = transform(one)) {
        replace_part(script, 1, *norm);
        modified = true;
      } else {
        script.push_back({chars[k].cp, 0});
      }
    }
    i = j;
  }
  return modified ? apply_changes(chars, script) : chars;
}

CharString apply_changes(const CharString& in, const std::vector<std::pair<char32_t, int>>& changes) {
  CharString out;
  out.reserve(changes.size());
  size_t next = 0;  // the source character the next kept or replaced character stands on
  for (const auto& [cp, change] : changes) {
    if (change > 0) {
      const SourceChar before =
          out.empty() ? SourceChar{cp, in.empty() ? 0 : in.front().begin, in.empty() ? 0 : in.front().begin}
                      : out.back();
      out.push_back({cp, before.begin, before.end});
      continue;
    }
    if (next >= in.size()) break;  // a script longer than its text (a malformed charsmap)
    out.push_back({cp, in[next].begin, in[next].end});
    next += 1 + static_cast<size_t>(-change);
  }
  return out;
}

}  // namespace attnscope
