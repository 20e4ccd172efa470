#pragma once
// System fonts through fontconfig (DejaVu Sans or Noto Sans from Debian) at sizes that follow
// the monitor's content scale; Dear ImGui's built-in font when none is found.
#include <string>

struct ImFont;

namespace attnscope::ui {

struct Fonts {
  ImFont* normal = nullptr;
  ImFont* large = nullptr;  // presentation mode
  std::string file;         // the font file used, empty for ImGui's own
};

// The file fontconfig matches for `pattern` (e.g. "DejaVu Sans"), or "" when it has none.
std::string find_font_file(const std::string& pattern);
// Adds the fonts to ImGui's atlas; call before the first frame.
Fonts load_fonts(float content_scale);

}  // namespace attnscope::ui
