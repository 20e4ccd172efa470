#include "tokenizer/piece_text.h"

#include <utf8proc.h>

#include "tokenizer/byte_level.h"
#include "tokenizer/utf8.h"

namespace attnscope {
namespace {

constexpr std::string_view kMetaspace = "\u2581";

// The bytes a byte-level piece spells, when it is one: every character in the byte alphabet, at
// least one of them standing for a space or a byte above 127, and the bytes valid UTF-8.
bool byte_level_bytes(std::string_view piece, std::string& bytes) {
  static const auto inverse = [] {
    std::u32string map(324, U'\0');
    std::string seen(324, 0);
    const auto& table = byte_level_chars();
    for (int b = 0; b < 256; ++b)
      map[table[static_cast<size_t>(b)]] = static_cast<char32_t>(b), seen[table[static_cast<size_t>(b)]] = 1;
    return std::make_pair(map, seen);
  }();
  bool marked = false;
  try {
    for (const SourceChar& c : decode_utf8(piece)) {
      if (c.cp >= inverse.first.size() || !inverse.second[c.cp]) return false;
      const auto b = static_cast<unsigned char>(inverse.first[c.cp]);
      marked |= b >= 0x80 || b <= 0x20;
      bytes.push_back(static_cast<char>(b));
    }
  } catch (...) {
    return false;
  }
  return marked && utf8proc_decompose(reinterpret_cast<const utf8proc_uint8_t*>(bytes.data()),
                                      static_cast<utf8proc_ssize_t>(bytes.size()), nullptr, 0,
                                      static_cast<utf8proc_option_t>(0)) >= 0;
}

std::string visible(std::string text) {
  // A piece that is only spaces or line breaks would print as nothing.
  if (text.find_first_not_of(" \t\r\n") != std::string::npos) return text;
  std::string out;
  for (char c : text) out += c == '\n' ? "\u21b5" : c == '\t' ? "\u21e5" : "\u2423";
  return out;
}

}  // namespace

std::string readable_piece(std::string_view piece) {
  if (piece == kMetaspace) return "\u2423";  // a word-start mark alone: a space, shown as one
  if (piece.starts_with(kMetaspace)) piece.remove_prefix(kMetaspace.size());
  std::string bytes;
  if (!byte_level_bytes(piece, bytes)) return std::string(piece);
  if (bytes.size() > 1 && bytes.front() == ' ') bytes.erase(0, 1);
  return visible(std::move(bytes));
}

}  // namespace attnscope
