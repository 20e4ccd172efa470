#pragma once
// Small layout helpers shared by the panels, so that rows of buttons wrap instead of running past
// the edge of a narrow panel (presentation mode on a 1280 x 800 projector).
#include <imgui.h>

namespace attnscope::ui {

// Puts the next item on the current line when it fits there (`width` pixels), else on a new one.
inline void same_line_if_fits(float width) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width <= right) ImGui::SameLine();
}

inline float button_width(const char* label) {
  return ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;  // "##id" not shown
}

// A button that goes beside the previous item when there is room.
inline bool flowing_button(const char* label) {
  same_line_if_fits(button_width(label));
  return ImGui::Button(label);
}

}  // namespace attnscope::ui
