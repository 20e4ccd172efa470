#include "layout_audit.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <cstdio>

namespace attnscope::ui {

void LayoutAudit::check_tab_bar() {
  const ImGuiTabBar* bar = ImGui::GetCurrentContext()->CurrentTabBar;
  if (!bar) return;
  for (const ImGuiTabItem& tab : bar->Tabs)
    if (tab.Width + 0.5f < tab.ContentWidth) {
      char line[256];
      std::snprintf(line, sizeof line, "tab \"%s\" is cut to %.0f of %.0f px", bar->GetTabName(&tab), tab.Width,
                    tab.ContentWidth);
      findings_.emplace_back(line);
    }
}

void LayoutAudit::check_windows() {
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  for (const ImGuiWindow* w : g.Windows) {
    if (!w->WasActive || w->Hidden || w->ScrollbarX) continue;
    const float inner = w->InnerRect.GetWidth();
    const float needed = w->ContentSize.x;
    if (needed > inner + 2.0f && inner > 0) {
      char line[256];
      std::snprintf(line, sizeof line, "window \"%s\" shows %.0f of its %.0f px wide content", w->Name, inner, needed);
      findings_.emplace_back(line);
    }
  }
}

}  // namespace attnscope::ui
