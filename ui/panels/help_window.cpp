#include "panels/help_window.h"

#include <imgui.h>

#include "view_state.h"

namespace attnscope::ui {

const Shortcut* shortcuts(int& count) {
  static const Shortcut list[] = {
      {"Right / Left", "next / previous head (wraps into the next / previous layer)"},
      {"Up / Down", "previous / next layer"},
      {"S", "focus the layer's sum instead of one head"},
      {"M", "attention -> similarity -> cosine"},
      {"1 ... 8", "overview, head, separators, pairs, statistics, layers, lines, corpus"},
      {"P", "presentation mode: large fonts, high contrast, fewer panels"},
      {"E", "export the shown figure (PNG, SVG, PDF)"},
      {"N", "a decoder: append its most likely next token and analyse again"},
      {"F1 or H", "this help"},
      {"Ctrl + wheel", "zoom a figure; drag to pan"},
  };
  count = static_cast<int>(std::size(list));
  return list;
}

void draw_help_window(bool& open) {
  if (!open) return;
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 40, ImGui::GetFontSize() * 30), ImGuiCond_FirstUseEver);
  if (ImGui::Begin("Help", &open)) {
    ImGui::TextUnformatted("Keys (when not typing in the text):");
    int count = 0;
    const Shortcut* list = shortcuts(count);
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg)) {
      for (int k = 0; k < count; ++k) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(list[k].keys);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(list[k].action);
      }
      ImGui::EndTable();
    }
    ImGui::Separator();
    for (int v = 0; v < kViewCount; ++v) {
      ImGui::TextUnformatted(view_title(static_cast<View>(v)));
      ImGui::Indent();
      ImGui::TextWrapped("%s", view_help(static_cast<View>(v)));
      ImGui::Unindent();
    }
  }
  ImGui::End();
}

}  // namespace attnscope::ui
