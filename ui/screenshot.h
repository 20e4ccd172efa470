#pragma once
// Saves what the window's back buffer holds as a PNG (for --screenshot).
#include <cstdint>
#include <string>
#include <vector>

namespace attnscope::ui {

// The back buffer's pixels (width x height, RGBA, bottom row first).
std::vector<uint8_t> read_back_buffer(int width, int height);

// Reads the current framebuffer (width x height) and writes it; throws attnscope::Error.
void save_screenshot(const std::string& path, int width, int height);

}  // namespace attnscope::ui
