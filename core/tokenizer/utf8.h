#pragma once
// UTF-8 decoding that remembers where every character came from, so that word pieces can
// point back at the bytes of the text the user typed.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

// A character of (possibly normalised) text with the byte range [begin, end) of the original
// text it stems from. Characters produced by decomposition share their source's range.
struct SourceChar {
  char32_t cp;
  uint32_t begin;
  uint32_t end;
};
using CharString = std::vector<SourceChar>;

// Throws attnscope::Error naming the byte offset of the first invalid sequence.
CharString decode_utf8(std::string_view text);

void append_utf8(std::string& out, char32_t cp);
std::string encode_utf8(const SourceChar* first, const SourceChar* last);

// Code points of valid UTF-8 (bytes that start a character), and the first `count` of them.
size_t count_code_points(std::string_view text);
std::string truncate_code_points(std::string_view text, size_t count);

}  // namespace attnscope
