#include "controls/head_controls.h"

#include <imgui.h>

#include <algorithm>

#include "widgets.h"

namespace attnscope::ui {

void head_controls(ViewState& s, const ModelShape& model, int tokens) {
  matrix_controls(s, model);
  flowing_check("queries and keys", &s.query_key);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "The focused head's query of one token, every token's key, their products dimension by dimension (a row "
        "sums to q . k, which the model scales into the score) and the attention they make: bertviz's neuron view "
        "(Vig 2019).");
  if (!s.query_key) return;
  const int last = std::max(0, tokens - 1);
  same_line_if_fits(ImGui::GetFontSize() * 12);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  ImGui::SliderInt("query token", &s.query, 0, last);
  s.query = std::clamp(s.query, 0, last);
}

}  // namespace attnscope::ui
