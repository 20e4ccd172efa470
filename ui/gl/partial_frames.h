#pragma once
// Frames that redraw one part of the window. A key typed into the editor changes only the text
// side; where the window's back buffer still holds the last frame after a swap, that side alone
// is redrawn over it. Without a GPU such a frame takes half as long, and less from the model's
// run beside it (bench/RESULTS.md, issue 10). GL does not promise what the back buffer holds after
// a swap (GLX_EXT_buffer_age would say, and Mesa's software GLX has none): it is found out.
#include <imgui.h>

#include <cstdint>

struct GLFWwindow;

namespace attnscope::ui {

// Draws three frames of the background, each one step of colour apart (not to be seen), and reads
// back what the back buffer holds after each swap: true when it is always the frame just shown,
// as where a swap copies the back buffer to the window (Mesa's software GLX does). A driver that
// flips between buffers answers false, and every frame is then drawn whole.
bool back_buffer_kept_after_swap(GLFWwindow* window, ImVec4 background);

// A rectangle of framebuffer pixels, y from the bottom (as glScissor takes it).
struct PixelRect {
  int x = 0, y = 0, width = 0, height = 0;
};

// Clips every command of `data` to `rect` (display coordinates, widened to whole pixels), so that
// the backend draws nothing outside it; returns those pixels, for a framebuffer `fb_height` high.
PixelRect clip_draw_data(ImDrawData& data, ImVec4 rect, int fb_height);

// True when the window named `root` and its children are all ImGui shows this frame (no popup,
// tooltip or other window over them).
bool only_window_shown(const char* root);

}  // namespace attnscope::ui
