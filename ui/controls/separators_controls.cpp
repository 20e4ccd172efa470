#include "controls/separators_controls.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "tokenizer/piece_text.h"
#include "widgets.h"

namespace attnscope::ui {
namespace {

// "Most column attention (a_hat): . 12: 1.00, [SEP] 40: 0.93, ..." (the six largest).
std::string top_columns(const Separators& seps, const Encoding& e) {
  std::vector<int> order(seps.column_share.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int x, int y) { return seps.column_share[x] > seps.column_share[y]; });
  std::string top = "Most column attention (a_hat): ";
  for (size_t k = 0; k < order.size() && k < 6; ++k) {
    char item[96];
    std::snprintf(item, sizeof item, "%s%s %d: %.2f", k ? ", " : "", readable_piece(e.tokens[order[k]].text).c_str(),
                  order[k], seps.column_share[order[k]]);
    top += item;
  }
  return top;
}

void describe_separators(const ViewState& s, const AnalysisSettings& analysis, const AnalysisSnapshot& shown) {
  const TextAnalysis& a = shown.analysis;
  if (s.layer >= a.num_layers || s.head >= a.num_heads) return;
  const Separators& seps = a.head(s.layer, std::max(0, s.head)).separators;
  const Encoding& e = shown.encoding;
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(top_columns(seps, e).c_str());
  const bool only_special = !seps.positions.empty() && std::all_of(seps.positions.begin(), seps.positions.end(),
                                                                   [&](int j) { return e.tokens[j].special; });
  if (only_special && !analysis.separators_text_only)
    ImGui::TextDisabled(
        "Only special tokens reach tau_sep = %.2f here, so the mask and the blocks have one colour: this head "
        "puts its attention on %s. Tick \"separators among text tokens only\" to see the text's own columns.",
        a.settings.tau_sep, readable_piece(e.tokens[seps.positions.front()].text).c_str());
  ImGui::PopTextWrapPos();
}

}  // namespace

bool separators_controls(ViewState& s, const ModelShape& model, AnalysisSettings& analysis,
                         const AnalysisSnapshot* shown) {
  focus_controls(s, model);
  bool changed = false;
  same_line_if_fits(ImGui::GetFrameHeight() + ImGui::CalcTextSize("separators among text tokens only").x + 8);
  changed |= ImGui::Checkbox("separators among text tokens only", &analysis.separators_text_only);
  if (const auto from =
          input_combo("separators from", static_cast<int>(analysis.separators_from), "attention\0norm\0rollout\0",
                      ImGui::GetFontSize() * 16,
                      "The column attention a_j summed from the attention maps (METHOD.md), the norm-based maps "
                      "(Kobayashi et al. 2020) or the layer's rollout (Abnar and Zuidema 2020).")) {
    analysis.separators_from = static_cast<SeparatorInput>(*from);
    changed = true;
  }
  if (shown) describe_separators(s, analysis, *shown);
  return changed;
}

}  // namespace attnscope::ui
