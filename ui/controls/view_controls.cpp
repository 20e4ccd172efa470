#include "controls/view_controls.h"

#include <imgui.h>

#include <algorithm>

#include "widgets.h"

namespace attnscope::ui {

void flowing_slider(const char* label, int* value, int top) {
  const float w = ImGui::GetFontSize() * 7;
  same_line_if_fits(w + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x);
  ImGui::SetNextItemWidth(w);
  ImGui::SliderInt(label, value, 0, top);
}

bool flowing_check(const char* label, bool* value, const char* tooltip) {
  same_line_if_fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x);
  const bool changed = ImGui::Checkbox(label, value);
  if (tooltip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tooltip);
  return changed;
}

void focus_controls(ViewState& s, const ModelShape& model) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  ImGui::SliderInt("layer", &s.layer, 0, std::max(0, model.layers - 1));
  flowing_slider("head", &s.head, std::max(0, model.heads - 1));
  flowing_check("layer sum", &s.layer_sum);
}

void matrix_controls(ViewState& s, const ModelShape& model) {
  focus_controls(s, model);
  int matrix = static_cast<int>(s.matrix);
  for (int k = 0; k < kMatrixKinds; ++k) {
    const char* name = matrix_name(static_cast<MatrixKind>(k));
    same_line_if_fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(name).x);
    ImGui::RadioButton(name, &matrix, k);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", matrix_help(static_cast<MatrixKind>(k)));
  }
  s.matrix = static_cast<MatrixKind>(matrix);
  if (s.matrix == MatrixKind::Attention) flowing_check("zero diagonal", &s.zero_diagonal);
  if (s.matrix == MatrixKind::Rollout) flowing_check("through the norm-based maps", &s.rollout_of_norm);
}

std::optional<int> input_combo(const char* label, int current, const char* items, float fit_width, const char* help) {
  same_line_if_fits(fit_width);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  const bool changed = ImGui::Combo(label, &current, items);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
  return changed ? std::optional<int>(current) : std::nullopt;
}

bool pair_source_control(AnalysisSettings& analysis) {
  const auto from =
      input_combo("pairs from", static_cast<int>(analysis.pairs_from), "similarity\0cosine\0attention\0norm\0rollout\0",
                  ImGui::GetFontSize() * 13,
                  "The matrix whose high elements (>= tau times its largest) are the pairs: S (METHOD.md), cosine, "
                  "attention, the norm-based map (Kobayashi et al. 2020) or the layer's rollout (Abnar and Zuidema "
                  "2020); attention, norm and rollout averaged with their transpose first.");
  if (from) analysis.pairs_from = static_cast<PairInput>(*from);
  return from.has_value();
}

}  // namespace attnscope::ui
