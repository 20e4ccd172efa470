#include "panels/role_grid.h"

#include <imgui.h>

#include <array>
#include <string>

#include "figures/colormap.h"
#include "widgets.h"

namespace attnscope::ui {
namespace {

// One colour a role, apart for readers with any common colour vision (Okabe and Ito's palette).
constexpr std::array<ImU32, kHeadRoles.size()> kRoleColours = {
    IM_COL32(230, 159, 0, 255), IM_COL32(86, 180, 233, 255), IM_COL32(0, 158, 115, 255),  IM_COL32(240, 228, 66, 255),
    IM_COL32(0, 114, 178, 255), IM_COL32(213, 94, 0, 255),   IM_COL32(204, 121, 167, 255)};
constexpr ImU32 kNoRole = IM_COL32(70, 70, 70, 255);

size_t role_index(HeadRole role) {
  for (size_t k = 0; k < kHeadRoles.size(); ++k)
    if (kHeadRoles[k] == role) return k;
  return 0;
}

std::string head_tooltip(const HeadRoleScores& r, int l, int h) {
  std::string text = "layer " + std::to_string(l) + ", head " + std::to_string(h) + "\n";
  const auto strongest = r.strongest(l, h);
  text += "role: " + (strongest ? std::string(head_role_name(*strongest)) : std::string("none")) + "\n";
  for (const HeadRole role : kHeadRoles) {
    const auto v = r.score(role, l, h);
    char line[64];
    std::snprintf(line, sizeof line, "\n%-16s %s", std::string(head_role_name(role)).c_str(),
                  v ? std::to_string(*v).substr(0, 5).c_str() : "-");
    text += line;
  }
  text += "\n\nlayer " + std::to_string(l) + " sink rate " + std::to_string(r.sink_rate({}, l)).substr(0, 4);
  return text;
}

}  // namespace

// The legend doubles as the choice: "strongest role", or one role, its score shown as a shade. A
// role's radio button is drawn in its colour, so that swatch and name cannot be read as the next's.
void RoleGrid::draw_legend() {
  if (ImGui::RadioButton("strongest role", shown_ < 0)) shown_ = -1;
  for (size_t k = 0; k < kHeadRoles.size(); ++k) {
    const std::string name(head_role_name(kHeadRoles[k]));
    same_line_if_fits(ImGui::GetFrameHeight() + ImGui::CalcTextSize(name.c_str()).x + 12);
    const ImVec4 colour = ImGui::ColorConvertU32ToFloat4(kRoleColours[k]);
    const ImVec4 lighter(colour.x + (1 - colour.x) * 0.3f, colour.y + (1 - colour.y) * 0.3f,
                         colour.z + (1 - colour.z) * 0.3f, 1);
    ImGui::PushStyleColor(ImGuiCol_FrameBg, colour);
    ImGui::PushStyleColor(ImGuiCol_FrameBgHovered, lighter);
    ImGui::PushStyleColor(ImGuiCol_FrameBgActive, lighter);
    ImGui::PushStyleColor(ImGuiCol_CheckMark, ImVec4(0.05f, 0.05f, 0.05f, 1));  // the dot, dark on every colour
    if (ImGui::RadioButton(name.c_str(), shown_ == static_cast<int>(k))) shown_ = static_cast<int>(k);
    ImGui::PopStyleColor(4);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Shade every head by its %s score (0 to 1)", name.c_str());
  }
}

void RoleGrid::draw(const PanelContext& c, ViewState& state, PanelActions& actions) {
  const AnalysisSnapshot& s = *c.snapshot;
  if (!s.roles) {
    ImGui::TextDisabled("%s", s.roles_note.empty() ? "Working out the head roles..." : s.roles_note.c_str());
    return;
  }
  const HeadRoleScores& r = *s.roles;
  ImGui::Text("Head roles (a role needs a score of at least 0.40); model sink rate %.2f", r.sink_rate());
  if (!s.roles_note.empty()) ImGui::TextDisabled("%s", s.roles_note.c_str());
  draw_legend();
  const float cell = std::clamp(ImGui::GetContentRegionAvail().x / static_cast<float>(r.layers() + 1), 8.0f, 22.0f);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const Colormap& shades = colormap(ColormapId::Viridis);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (int h = 0; h < r.heads(); ++h)
    for (int l = 0; l < r.layers(); ++l) {
      const ImVec2 at(origin.x + static_cast<float>(l) * cell, origin.y + static_cast<float>(h) * cell);
      ImU32 colour = kNoRole;
      if (shown_ < 0) {
        if (const auto role = r.strongest(l, h)) colour = kRoleColours[role_index(*role)];
      } else if (const auto v = r.score(kHeadRoles[static_cast<size_t>(shown_)], l, h)) {
        const Rgb rgb = shades.at(*v);
        colour = ImGui::ColorConvertFloat4ToU32(ImVec4(rgb.r, rgb.g, rgb.b, 1));
      }
      draw->AddRectFilled(at, ImVec2(at.x + cell - 1, at.y + cell - 1), colour);
      ImGui::SetCursorScreenPos(at);
      ImGui::PushID(h * static_cast<int>(r.layers()) + l);
      if (ImGui::InvisibleButton("role", ImVec2(cell - 1, cell - 1))) {
        state.layer = l;
        state.head = h;
        state.layer_sum = false;
        state.view = View::Head;
        actions.state = state;
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", head_tooltip(r, l, h).c_str());
      ImGui::PopID();
    }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + static_cast<float>(r.heads()) * cell + 2));
  ImGui::TextDisabled("layers 0 .. %lld across, heads 0 .. %lld down", static_cast<long long>(r.layers() - 1),
                      static_cast<long long>(r.heads() - 1));
}

}  // namespace attnscope::ui
