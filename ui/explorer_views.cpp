// The explorer's views: each view's own controls (draw_view) and the tab bar (draw_views).
#include "explorer_app.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <optional>

#include "tokenizer/piece_text.h"
#include "widgets.h"

namespace attnscope::ui {

void Explorer::draw_view(View view, const PanelContext& c) {
  // The view's own controls flow onto the next line when the panel is narrow.
  const auto slider = [](const char* label, int* value, int top) {
    const float w = ImGui::GetFontSize() * 7;
    same_line_if_fits(w + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x);
    ImGui::SetNextItemWidth(w);
    ImGui::SliderInt(label, value, 0, top);
  };
  const auto check = [](const char* label, bool* value) {
    same_line_if_fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x);
    ImGui::Checkbox(label, value);
  };
  const auto focus_controls = [this, slider, check](ViewState& s) {
    const ModelStatus m = worker_->model_status();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    ImGui::SliderInt("layer", &s.layer, 0, std::max(0, m.layers - 1));
    slider("head", &s.head, std::max(0, m.heads - 1));
    check("layer sum", &s.layer_sum);
  };
  const auto matrix_controls = [&focus_controls, check](ViewState& s) {
    focus_controls(s);
    int matrix = static_cast<int>(s.matrix);
    for (int k = 0; k < kMatrixKinds; ++k) {
      const char* name = matrix_name(static_cast<MatrixKind>(k));
      same_line_if_fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(name).x);
      ImGui::RadioButton(name, &matrix, k);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", matrix_help(static_cast<MatrixKind>(k)));
    }
    s.matrix = static_cast<MatrixKind>(matrix);
    if (s.matrix == MatrixKind::Attention) check("zero diagonal", &s.zero_diagonal);
    if (s.matrix == MatrixKind::Rollout) check("through the norm-based maps", &s.rollout_of_norm);
  };
  // The Head view's own: the matrix, or the queries and keys of one token (bertviz's neuron view).
  const auto head_controls = [this, &matrix_controls, check](ViewState& s) {
    matrix_controls(s);
    check("queries and keys", &s.query_key);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("The focused head's query of one token, every token's key, their products (a row sums to the score "
                        "times sqrt(d)) and the attention they make: bertviz's neuron view (Vig 2019).");
    if (!s.query_key) return;
    const auto latest = worker_->latest_good();
    const int n = latest ? static_cast<int>(latest->encoding.size()) : 1;
    same_line_if_fits(ImGui::GetFontSize() * 12);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    ImGui::SliderInt("query token", &s.query, 0, std::max(0, n - 1));
    s.query = std::clamp(s.query, 0, std::max(0, n - 1));
  };
  const auto layer_choice = [this, check](ViewState& s) {
    int matrix = static_cast<int>(s.layers_matrix);
    ImGui::TextUnformatted("layer maps");
    for (int k = 0; k < kMatrixKinds; ++k) {
      const char* name = matrix_name(static_cast<MatrixKind>(k));
      same_line_if_fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(name).x);
      ImGui::RadioButton((std::string(name) + "##layers").c_str(), &matrix, k);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", matrix_help(static_cast<MatrixKind>(k)));
    }
    s.layers_matrix = static_cast<MatrixKind>(matrix);
    const int layers = worker_->model_status().layers;
    ImGui::TextUnformatted("layers shown");
    for (int l = 0; l < layers; ++l) {
      bool on = s.layers_shown.empty() || std::find(s.layers_shown.begin(), s.layers_shown.end(), l) != s.layers_shown.end();
      const bool was = on;
      check(std::to_string(l).c_str(), &on);
      if (on == was) continue;
      if (s.layers_shown.empty())
        for (int k = 0; k < layers; ++k) s.layers_shown.push_back(k);
      if (on) s.layers_shown.push_back(l);
      else std::erase(s.layers_shown, l);
      std::sort(s.layers_shown.begin(), s.layers_shown.end());
      s.layers_shown.erase(std::unique(s.layers_shown.begin(), s.layers_shown.end()), s.layers_shown.end());
      if (s.layers_shown.empty()) s.layers_shown.push_back(l);  // at least one layer stays
    }
  };
  const auto lines_controls = [this, &focus_controls, check](ViewState& s) {
    focus_controls(s);
    if (s.layer_sum) return;
    ImGui::TextUnformatted("with heads");
    for (int h = 0; h < worker_->model_status().heads; ++h) {
      if (h == s.head) continue;  // the focused head is always drawn
      bool on = std::find(s.heads_shown.begin(), s.heads_shown.end(), h) != s.heads_shown.end();
      check(std::to_string(h).c_str(), &on);
      if (on) {
        if (std::find(s.heads_shown.begin(), s.heads_shown.end(), h) == s.heads_shown.end()) s.heads_shown.push_back(h);
      } else {
        std::erase(s.heads_shown, h);
      }
    }
  };
  // Where an input of the analysis is chosen, beside the previous controls: the new index when it changed.
  const auto input_combo = [](const char* label, int current, const char* items, float fit_width, const char* help) {
    same_line_if_fits(fit_width);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    const bool changed = ImGui::Combo(label, &current, items);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
    return changed ? std::optional<int>(current) : std::nullopt;
  };
  // Which tokens took the most column attention, and why the mask may show one colour only.
  const auto separator_controls = [this, &focus_controls, &input_combo, &c](ViewState& s) {
    focus_controls(s);
    bool text_only = settings_.analysis.separators_text_only;
    same_line_if_fits(ImGui::GetFrameHeight() + ImGui::CalcTextSize("separators among text tokens only").x + 8);
    if (ImGui::Checkbox("separators among text tokens only", &text_only)) {
      settings_.analysis.separators_text_only = text_only;
      submit();
    }
    if (const auto from = input_combo("separators from", static_cast<int>(settings_.analysis.separators_from), "attention\0norm\0rollout\0",
                                      ImGui::GetFontSize() * 16,
                                      "The column attention a_j summed from the attention maps (METHOD.md), the norm-based maps "
                                      "(Kobayashi et al. 2020) or the layer's rollout (Abnar and Zuidema 2020).")) {
      settings_.analysis.separators_from = static_cast<SeparatorInput>(*from);
      submit();
    }
    if (!c.snapshot) return;
    const TextAnalysis& a = c.snapshot->analysis;
    if (s.layer >= a.num_layers || s.head >= a.num_heads) return;
    const Separators& seps = a.head(s.layer, std::max(0, s.head)).separators;
    const Encoding& e = c.snapshot->encoding;
    std::vector<int> order(seps.column_share.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int x, int y) { return seps.column_share[x] > seps.column_share[y]; });
    std::string top = "Most column attention (a_hat): ";
    for (size_t k = 0; k < order.size() && k < 6; ++k) {
      char item[96];
      std::snprintf(item, sizeof item, "%s%s %d: %.2f", k ? ", " : "", readable_piece(e.tokens[order[k]].text).c_str(), order[k], seps.column_share[order[k]]);
      top += item;
    }
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(top.c_str());
    const bool only_special = !seps.positions.empty() && std::all_of(seps.positions.begin(), seps.positions.end(), [&](int j) { return e.tokens[j].special; });
    if (only_special && !settings_.analysis.separators_text_only)
      ImGui::TextDisabled("Only special tokens reach tau_sep = %.2f here, so the mask and the blocks have one colour: this head "
                          "puts its attention on %s. Tick \"separators among text tokens only\" to see the text's own columns.",
                          a.settings.tau_sep, readable_piece(e.tokens[seps.positions.front()].text).c_str());
    ImGui::PopTextWrapPos();
  };
  // Which matrix a head's pairs, and so its statistics, come from (S by default, as METHOD.md).
  const auto pair_source = [this, &input_combo] {
    if (const auto from = input_combo("pairs from", static_cast<int>(settings_.analysis.pairs_from),
                                      "similarity\0cosine\0attention\0norm\0rollout\0", ImGui::GetFontSize() * 13,
                                      "The matrix whose high elements (>= tau times its largest) are the pairs: S (METHOD.md), cosine, "
                                      "attention, the norm-based map (Kobayashi et al. 2020) or the layer's rollout (Abnar and Zuidema "
                                      "2020); attention, norm and rollout averaged with their transpose first.")) {
      settings_.analysis.pairs_from = static_cast<PairInput>(*from);
      submit();
    }
  };
  const auto stats_controls = [&focus_controls, &pair_source](ViewState& s) {
    focus_controls(s);
    pair_source();
  };
  switch (view) {
    case View::Grid: apply(grid_.draw(c)); break;
    case View::Head: apply(head_.draw(c, head_controls)); break;
    case View::Separators: apply(separators_.draw(c, separator_controls)); break;
    case View::Pairs:
      pair_source();
      apply(pairs_.draw(c));
      break;
    case View::Stats: apply(stats_.draw(c, stats_controls)); break;
    case View::Layers: apply(layers_.draw(c, layer_choice)); break;
    case View::Lines: apply(lines_.draw(c, lines_controls)); break;
    case View::Corpus: apply(corpus_.draw(c, worker_->checkpoint(), focus_controls)); break;
    case View::Compare: {
      const auto comparison = comparison_.latest();
      const CompareActions a = compare_.draw(c, comparison.get(), compare_status(), settings_.model, settings_.recent_models, matrix_controls);
      apply(a.panel);
      if (a.start) start_compare(*a.start);
      if (a.text_b && compare_choice_ && !compare_choice_->other_model) {  // live, as A's text is
        compare_choice_->text = *a.text_b;
        submit_b();
      }
      break;
    }
  }
}

void Explorer::draw_views(const PanelContext& c) {
  if (!ImGui::BeginTabBar("views")) return;
  for (int v = 0; v < kViewCount; ++v) {
    const View view = static_cast<View>(v);
    const ImGuiTabItemFlags flags = select_tab_ > 0 && settings_.view.view == view ? ImGuiTabItemFlags_SetSelected : 0;
    if (!ImGui::BeginTabItem(view_title(view), nullptr, flags)) continue;
    if (select_tab_ == 0 && settings_.view.view != view) settings_.view.view = view;  // the user clicked this tab
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 35);
      ImGui::TextUnformatted(view_help(view));
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
    ImGui::SameLine();
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", view_summary(view));
    ImGui::PopTextWrapPos();
    draw_view(view, c);
    ImGui::EndTabItem();
  }
  if (select_tab_ > 0) --select_tab_;
  audit_.check_tab_bar();
  ImGui::EndTabBar();
}

}  // namespace attnscope::ui
