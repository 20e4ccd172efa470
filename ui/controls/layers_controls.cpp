#include "controls/layers_controls.h"

#include <imgui.h>

#include <algorithm>
#include <string>

#include "widgets.h"

namespace attnscope::ui {
namespace {

// Layer l on or off; an empty list means every layer, and at least one layer stays shown.
void toggle_layer(ViewState& s, int l, bool on, int layers) {
  if (s.layers_shown.empty())
    for (int k = 0; k < layers; ++k) s.layers_shown.push_back(k);
  if (on)
    s.layers_shown.push_back(l);
  else
    std::erase(s.layers_shown, l);
  std::sort(s.layers_shown.begin(), s.layers_shown.end());
  s.layers_shown.erase(std::unique(s.layers_shown.begin(), s.layers_shown.end()), s.layers_shown.end());
  if (s.layers_shown.empty()) s.layers_shown.push_back(l);
}

}  // namespace

void layers_controls(ViewState& s, const ModelShape& model) {
  int matrix = static_cast<int>(s.layers_matrix);
  ImGui::TextUnformatted("layer maps");
  for (int k = 0; k < kMatrixKinds; ++k) {
    const char* name = matrix_name(static_cast<MatrixKind>(k));
    same_line_if_fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(name).x);
    ImGui::RadioButton((std::string(name) + "##layers").c_str(), &matrix, k);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", matrix_help(static_cast<MatrixKind>(k)));
  }
  s.layers_matrix = static_cast<MatrixKind>(matrix);
  ImGui::TextUnformatted("layers shown");
  for (int l = 0; l < model.layers; ++l) {
    bool on =
        s.layers_shown.empty() || std::find(s.layers_shown.begin(), s.layers_shown.end(), l) != s.layers_shown.end();
    const bool was = on;
    flowing_check(std::to_string(l).c_str(), &on);
    if (on != was) toggle_layer(s, l, on, model.layers);
  }
}

}  // namespace attnscope::ui
