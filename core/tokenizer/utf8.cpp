#include "tokenizer/utf8.h"

#include <utf8proc.h>

#include <limits>

#include "base/error.h"

namespace attnscope {

CharString decode_utf8(std::string_view text) {
  if (text.size() > std::numeric_limits<uint32_t>::max())
    throw Error("text is too large (" + std::to_string(text.size()) + " bytes; at most 4 GiB)");
  CharString out;
  out.reserve(text.size());
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  size_t pos = 0;
  while (pos < text.size()) {
    utf8proc_int32_t cp = 0;
    const auto len = utf8proc_iterate(bytes + pos, static_cast<utf8proc_ssize_t>(text.size() - pos), &cp);
    if (len <= 0) throw Error("invalid UTF-8 at byte " + std::to_string(pos) + " of the text");
    out.push_back({static_cast<char32_t>(cp), static_cast<uint32_t>(pos), static_cast<uint32_t>(pos + len)});
    pos += static_cast<size_t>(len);
  }
  return out;
}

void append_utf8(std::string& out, char32_t cp) {
  utf8proc_uint8_t buf[4];
  const auto len = utf8proc_encode_char(static_cast<utf8proc_int32_t>(cp), buf);
  out.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(len));
}

std::string encode_utf8(const SourceChar* first, const SourceChar* last) {
  std::string out;
  out.reserve(static_cast<size_t>(last - first));
  for (; first != last; ++first) append_utf8(out, first->cp);
  return out;
}

}  // namespace attnscope

namespace attnscope {

size_t count_code_points(std::string_view text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

std::string truncate_code_points(std::string_view text, size_t count) {
  size_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && seen++ == count) return std::string(text.substr(0, i));
  }
  return std::string(text);
}

}  // namespace attnscope
