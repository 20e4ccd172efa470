#pragma once
// Saves what the window's back buffer holds as a PNG (for --screenshot).
#include <string>

namespace attnscope::ui {

// Reads the current framebuffer (width x height) and writes it; throws attnscope::Error.
void save_screenshot(const std::string& path, int width, int height);

}  // namespace attnscope::ui
