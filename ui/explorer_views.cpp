// The explorer's views: the tab bar (draw_views), and in each tab the view's panel with its own
// controls (ui/controls/, one file a view).
#include "explorer_app.h"

#include <imgui.h>

#include "controls/head_controls.h"
#include "controls/layers_controls.h"
#include "controls/lines_controls.h"
#include "controls/separators_controls.h"
#include "controls/view_controls.h"

namespace attnscope::ui {

void Explorer::draw_view(View view, const PanelContext& c) {
  const ModelStatus status = worker_->model_status();
  const ModelShape model{status.layers, status.heads};
  bool analysis_changed = false;  // a control changed the analysis's settings: the text runs again
  const auto focus = [&](ViewState& s) { focus_controls(s, model); };
  switch (view) {
    case View::Grid: apply(grid_.draw(c)); break;
    case View::Head: {
      const int tokens = c.snapshot ? static_cast<int>(c.snapshot->encoding.size()) : 1;
      apply(head_.draw(c, [&](ViewState& s) { head_controls(s, model, tokens); }));
      break;
    }
    case View::Separators:
      apply(separators_.draw(
          c, [&](ViewState& s) { analysis_changed |= separators_controls(s, model, settings_.analysis, c.snapshot); }));
      break;
    case View::Pairs:
      analysis_changed |= pair_source_control(settings_.analysis);
      apply(pairs_.draw(c));
      break;
    case View::Stats: {
      // A long text's scan under way: the statistics of the heads it has scanned so far.
      std::shared_ptr<const AnalysisSnapshot> so_far = c.run ? c.run->so_far : nullptr;
      if (options_.screenshot_mid_scan) {  // the first statistics handed on, held for the screenshot
        if (!held_so_far_) held_so_far_ = so_far;
        so_far = held_so_far_;
      }
      if (so_far)
        ImGui::TextDisabled("Scanning the heads for pairs: the statistics of %lld of %lld heads so far.",
                            static_cast<long long>(so_far->analysis.heads_scanned.value_or(0)),
                            static_cast<long long>(so_far->analysis.heads.size()));
      const PanelContext shown =
          so_far ? PanelContext{so_far.get(), c.state, c.renderer, c.figure_font, c.run, so_far} : c;
      apply(stats_.draw(shown, [&](ViewState& s) {
        focus(s);
        analysis_changed |= pair_source_control(settings_.analysis);
      }));
      break;
    }
    case View::Layers: apply(layers_.draw(c, [&](ViewState& s) { layers_controls(s, model); })); break;
    case View::Lines: apply(lines_.draw(c, [&](ViewState& s) { lines_controls(s, model); })); break;
    case View::Corpus: apply(corpus_.draw(c, worker_->checkpoint(), focus)); break;
    case View::Compare: draw_compare_view(c, model); break;
  }
  if (analysis_changed) submit();
}

void Explorer::draw_compare_view(const PanelContext& c, const ModelShape& model) {
  const auto comparison = comparison_.latest();
  const CompareActions a = compare_.draw(c, comparison.get(), compare_status(), settings_.model,
                                         settings_.recent_models, [&](ViewState& s) { matrix_controls(s, model); });
  apply(a.panel);
  if (a.start) start_compare(*a.start);
  if (a.text_b && compare_choice_ && !compare_choice_->other_model) {  // live, as A's text is
    compare_choice_->text = *a.text_b;
    submit_b();
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
  // A long text's maps are held by the view showing them only (FigurePanel::release_tiles).
  const View shown = settings_.view.view;
  for (const auto& [view, panel] :
       {std::pair{View::Head, &head_}, {View::Separators, &separators_}, {View::Layers, &layers_}})
    if (view != shown) panel->release_tiles();
  if (shown != View::Pairs) pairs_.release_tiles();
  audit_.check_tab_bar();
  ImGui::EndTabBar();
}

}  // namespace attnscope::ui
