#include "text_layout.h"

#include <algorithm>

namespace attnscope::ui {

char32_t next_code_point(const std::string& text, size_t& p) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = byte(p);
  const int length = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
  if (length == 0 || p + static_cast<size_t>(length) > text.size()) {
    ++p;
    return U'\uFFFD';
  }
  char32_t c = length == 1 ? b : length == 2 ? (b & 0x1F) : length == 3 ? (b & 0x0F) : (b & 0x07);
  for (int k = 1; k < length; ++k) {
    if ((byte(p + static_cast<size_t>(k)) & 0xC0) != 0x80) {
      ++p;
      return U'\uFFFD';
    }
    c = c << 6 | (byte(p + static_cast<size_t>(k)) & 0x3F);
  }
  p += static_cast<size_t>(length);
  return c;
}

std::vector<VisualLine> wrap_text(const std::string& text, float width, const CharWidth& char_width) {
  std::vector<VisualLine> lines;
  size_t begin = 0;
  while (true) {
    const size_t newline = text.find('\n', begin);
    const size_t end = newline == std::string::npos ? text.size() : newline;
    // One paragraph: fill each line, remembering the last place after a space where it may break.
    size_t line_begin = begin, p = begin, last_break = std::string::npos;
    float x = 0;
    while (p < end) {
      const size_t here = p;
      const char32_t c = next_code_point(text, p);
      const float w = char_width(c);
      if (c != U' ' && x + w > width && here > line_begin) {
        const size_t cut = last_break != std::string::npos ? last_break : here;
        lines.push_back({line_begin, cut});
        line_begin = cut;
        last_break = std::string::npos;
        x = 0;
        for (size_t q = cut; q < here;) x += char_width(next_code_point(text, q));
      }
      x += w;
      if (c == U' ') last_break = p;  // spaces stay at the end of the line they follow
    }
    lines.push_back({line_begin, end});
    if (newline == std::string::npos) break;
    begin = newline + 1;
  }
  return lines;
}

size_t line_of(const std::vector<VisualLine>& lines, size_t position) {
  // The last line that starts at or before the position.
  const auto it =
      std::upper_bound(lines.begin(), lines.end(), position, [](size_t p, const VisualLine& l) { return p < l.begin; });
  return it == lines.begin() ? 0 : static_cast<size_t>(it - lines.begin()) - 1;
}

float x_of(const std::string& text, const VisualLine& line, size_t position, const CharWidth& char_width) {
  float x = 0;
  for (size_t p = line.begin; p < std::min(position, line.end);) x += char_width(next_code_point(text, p));
  return x;
}

size_t position_at(const std::string& text, const VisualLine& line, float x, const CharWidth& char_width) {
  float left = 0;
  for (size_t p = line.begin; p < line.end;) {
    const size_t here = p;
    const float w = char_width(next_code_point(text, p));
    if (x < left + w / 2) return here;
    left += w;
  }
  return line.end;
}

}  // namespace attnscope::ui
