#pragma once
// Word wrap for the text editor: the text cut into visual lines no wider than the editor, at
// spaces where it can be (a word longer than the line is cut where it must), and the way between
// byte positions and points. Pure: the width of a character comes from the caller (the font).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace attnscope::ui {

struct VisualLine {
  size_t begin = 0, end = 0;  // bytes [begin, end) of the text, without the line's '\n'
};

using CharWidth = std::function<float(char32_t)>;

// Every paragraph (text between '\n') gives at least one line; an empty text gives one empty line.
std::vector<VisualLine> wrap_text(const std::string& text, float width, const CharWidth& char_width);

// The line that shows `position`: where a line is cut inside a paragraph, the position at the cut
// belongs to the next line.
size_t line_of(const std::vector<VisualLine>& lines, size_t position);
// The x offset of `position` within its line, and the position nearest to `x` on line `line`.
float x_of(const std::string& text, const VisualLine& line, size_t position, const CharWidth& char_width);
size_t position_at(const std::string& text, const VisualLine& line, float x, const CharWidth& char_width);

// Decodes the code point at `position` and advances it (invalid bytes count as U+FFFD).
char32_t next_code_point(const std::string& text, size_t& position);

}  // namespace attnscope::ui
