#include "gl/partial_frames.h"

#include <glad/gl.h>
#include <GLFW/glfw3.h>
#include <imgui_internal.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

namespace attnscope::ui {

bool back_buffer_kept_after_swap(GLFWwindow* window, ImVec4 background) {
  int width = 0, height = 0;
  glfwGetFramebufferSize(window, &width, &height);
  if (width <= 0 || height <= 0) return false;
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDisable(GL_SCISSOR_TEST);
  glViewport(0, 0, width, height);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  // Three frames tell a kept buffer from two or three buffers taking turns.
  const int base = std::clamp(static_cast<int>(std::lround(background.z * 255)), 0, 252);
  bool kept = true;
  for (int step = 0; step < 3; ++step) {
    glClearColor(background.x, background.y, static_cast<float>(base + step) / 255.0f, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glfwSwapBuffers(window);
    std::array<uint8_t, 4> pixel{};
    glReadPixels(width / 2, height / 2, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, pixel.data());
    kept = kept && pixel[2] == base + step;
  }
  return kept;
}

PixelRect clip_draw_data(ImDrawData& data, ImVec4 rect, int fb_height) {
  // Whole pixels: a command across the edge leaves no pixel half drawn on either side.
  const ImVec2 o = data.DisplayPos, s = data.FramebufferScale;
  const float x0 = std::floor((rect.x - o.x) * s.x), y0 = std::floor((rect.y - o.y) * s.y);
  const float x1 = std::ceil((rect.z - o.x) * s.x), y1 = std::ceil((rect.w - o.y) * s.y);
  const ImVec4 clip(x0 / s.x + o.x, y0 / s.y + o.y, x1 / s.x + o.x, y1 / s.y + o.y);
  for (int k = 0; k < data.CmdListsCount; ++k)
    for (ImDrawCmd& c : data.CmdLists[k]->CmdBuffer) {
      c.ClipRect.x = std::max(c.ClipRect.x, clip.x), c.ClipRect.y = std::max(c.ClipRect.y, clip.y);
      c.ClipRect.z = std::min(c.ClipRect.z, clip.z), c.ClipRect.w = std::min(c.ClipRect.w, clip.w);
    }
  return {static_cast<int>(x0), fb_height - static_cast<int>(y1), static_cast<int>(x1 - x0), static_cast<int>(y1 - y0)};
}

bool only_window_shown(const char* root) {
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
    if (w->Active && !w->Hidden && !w->IsFallbackWindow && std::strcmp(w->RootWindow->Name, root) != 0) return false;
  return true;
}

}  // namespace attnscope::ui
