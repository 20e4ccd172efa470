#include "tokenizer/piece_text.h"

#include <utf8proc.h>

#include <cstdio>

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
  return marked;
}

bool whole_utf8(const std::string& bytes) {
  return utf8proc_decompose(reinterpret_cast<const utf8proc_uint8_t*>(bytes.data()),
                            static_cast<utf8proc_ssize_t>(bytes.size()), nullptr, 0,
                            static_cast<utf8proc_option_t>(0)) >= 0;
}

// "<0xNN>", SentencePiece's spelling of one byte, as that byte.
bool fallback_byte(std::string_view piece, std::string& bytes) {
  if (piece.size() != 6 || !piece.starts_with("<0x") || piece.back() != '>') return false;
  unsigned value = 0;
  for (char c : piece.substr(3, 2)) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (digit < 0) return false;
    value = value * 16 + static_cast<unsigned>(digit);
  }
  bytes.assign(1, static_cast<char>(value));
  return true;
}

// A byte-level piece whose bytes end or begin inside a character (one character split over two
// pieces): it spells at least one remapped byte (the alphabet's characters from U+0100), which a
// SentencePiece or WordPiece entry of Latin-1 letters does not.
bool partial_byte_level(std::string_view piece, const std::string& bytes) {
  if (whole_utf8(bytes)) return false;
  for (const SourceChar& c : decode_utf8(piece))
    if (c.cp >= 0x100) return true;
  return false;
}

// Bytes as hexadecimal, "<E2 80>": how half a character is shown.
std::string hex_bytes(const std::string& bytes) {
  std::string out = "<";
  for (size_t k = 0; k < bytes.size(); ++k) {
    char two[4];
    std::snprintf(two, sizeof two, "%02X", static_cast<unsigned char>(bytes[k]));
    out += (k ? " " : "") + std::string(two);
  }
  return out + ">";
}

// Line breaks, tabs and carriage returns as signs wherever they are (printed as they are they
// would break a table's row or the token strip), and a piece that is only spaces as that many
// open boxes (it would print as nothing).
std::string visible(const std::string& text) {
  const bool blank = text.find_first_not_of(' ') == std::string::npos;
  std::string out;
  for (char c : text)
    out += c == '\n'           ? "\u21b5"
           : c == '\t'         ? "\u21e5"
           : c == '\r'         ? "\u21a9"
           : c == ' ' && blank ? "\u2423"
                               : std::string(1, c);
  return out;
}

bool only_metaspaces(std::string_view piece) {
  while (piece.starts_with(kMetaspace)) piece.remove_prefix(kMetaspace.size());
  return piece.empty();
}

}  // namespace

std::string readable_piece(std::string_view piece) {
  if (!piece.empty() && only_metaspaces(piece))  // word-start marks alone: spaces, shown as such
    return visible(std::string(piece.size() / kMetaspace.size(), ' '));
  if (piece.starts_with(kMetaspace)) piece.remove_prefix(kMetaspace.size());
  std::string bytes;
  if (fallback_byte(piece, bytes)) return whole_utf8(bytes) ? visible(bytes) : std::string(piece);
  if (!byte_level_bytes(piece, bytes)) return visible(std::string(piece));
  if (partial_byte_level(piece, bytes)) return hex_bytes(bytes);
  if (!whole_utf8(bytes)) return visible(std::string(piece));
  if (bytes.size() > 1 && bytes.front() == ' ') bytes.erase(0, 1);
  return visible(bytes);
}

std::string written_piece(std::string_view piece) {
  std::string bytes;
  if (fallback_byte(piece, bytes)) return whole_utf8(bytes) ? bytes : std::string();
  // Byte-level when its bytes make whole characters, or when it is half of one (nothing whole to
  // write); "é" alone is a SentencePiece piece, not byte 0xE9.
  if (byte_level_bytes(piece, bytes)) {
    if (whole_utf8(bytes)) return bytes;
    if (partial_byte_level(piece, bytes)) return {};
  }
  std::string out;
  for (size_t at = 0; at < piece.size();) {
    if (piece.substr(at).starts_with(kMetaspace)) {
      out += ' ';
      at += kMetaspace.size();
    } else {
      out += piece[at++];
    }
  }
  return out;
}

std::string spelt_piece(std::string_view piece) {
  std::string out;
  for (const char c : piece) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7F) {
      out += c;
    } else if (c == '\n' || c == '\t' || c == '\r') {
      out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r";
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", byte);
      out += escaped;
    }
  }
  return out;
}

}  // namespace attnscope
