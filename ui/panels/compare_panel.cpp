#include "panels/compare_panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <cstdio>
#include <filesystem>
#include <iterator>

#include "base/count_text.h"
#include "base/error_message.h"
#include "figures/compare_figures.h"
#include "panels/figure_panel.h"
#include "widgets.h"

namespace attnscope::ui {
namespace {

constexpr const char* kShown[] = {"head", "what changed", "statistics", "separators", "pairs", "layers", "lines"};
constexpr const char* kFigureNames[] = {"head", "changed", "stats", "5", "9", "12", "lines"};
constexpr int kShownCount = static_cast<int>(std::size(kShown));

std::string short_name(const std::string& model) {
  const std::filesystem::path p(model);
  return std::filesystem::is_directory(p) ? p.filename().string() : model;
}

}  // namespace

void ComparePanel::show(const std::string& shown) {
  const char* names[] = {"side", "changed", "stats", "separators", "pairs", "layers", "lines"};
  for (int k = 0; k < kShownCount; ++k)
    if (shown == names[k]) shown_ = k;
}

void ComparePanel::set_choice(CompareChoice choice) {
  choice_ = std::move(choice);
  if (choice_.text != text_b_.text()) text_b_.buffer().set_text(choice_.text);
}

std::optional<CompareChoice> ComparePanel::draw_choice(const std::string& a_model,
                                                       const std::vector<std::string>& recent, bool& edited) {
  int mode = choice_.other_model ? 0 : 1;
  ImGui::TextUnformatted("B is");
  ImGui::SameLine();
  ImGui::RadioButton("another model on this text", &mode, 0);
  same_line_if_fits(ImGui::CalcTextSize("this model on another text").x + ImGui::GetFrameHeight() * 2);
  ImGui::RadioButton("this model on another text", &mode, 1);
  choice_.other_model = mode == 0;
  if (choice_.other_model) {
    if (choice_.model.empty()) choice_.model = a_model;
    ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 10, ImGui::GetContentRegionAvail().x -
                                                                    button_width("Compare") - ImGui::GetFrameHeight() -
                                                                    ImGui::GetStyle().ItemSpacing.x * 2));
    ImGui::InputTextWithHint("##model b", "B's checkpoint folder or model id", &choice_.model);
    ImGui::SameLine();
    if (ImGui::BeginCombo("##recent b", "recent", ImGuiComboFlags_NoPreview)) {
      for (const std::string& m : recent)
        if (ImGui::Selectable(short_name(m).c_str())) choice_.model = m;
      ImGui::EndCombo();
    }
    ImGui::SameLine();
  } else {
    edited = text_b_.draw("##text b", ImGui::GetTextLineHeightWithSpacing() * 3.2f);
    choice_.text = text_b_.text();
  }
  if (ImGui::Button("Compare")) return choice_;
  return std::nullopt;
}

void ComparePanel::draw_status(const CompareStatus& s) const {
  ImGui::PushTextWrapPos(0);
  if (!s.model.error.empty())
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "B: %s", s.model.error.c_str());
  else if (!s.model.loaded)
    ImGui::TextDisabled("B: loading the model...");
  else if (!s.error.empty())
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "B: %s", s.error.c_str());
  else
    ImGui::TextDisabled("B: %s, %d layers x %d heads on %s%s", s.model.name.c_str(), s.model.layers, s.model.heads,
                        s.model.device.c_str(), s.busy ? " - analysing..." : "");
  ImGui::PopTextWrapPos();
  if (s.comparing && *s.comparing > 0) {  // a long text's comparison (a short one's reports nothing)
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, "comparing A and B: %.0f%%", 100 * *s.comparing);
    ImGui::ProgressBar(static_cast<float>(*s.comparing), ImVec2(-1, 0), overlay);
  }
}

void ComparePanel::rebuild(const ComparisonSnapshot& s, const FigureOptions& options) {
  const TextComparison& c = *s.comparison;
  const bool two_models = s.a->analysis.num_layers != s.b->analysis.num_layers || choice_.other_model;
  const std::string name_a = two_models ? "A" : "text A", name_b = two_models ? "B" : "text B";
  const ComparedTextsView view{s.a->view(), s.b->view(), c, name_a, name_b};  // a long text's maps made again
  FigureOptions o = options;
  o.caption = c.alignment.identical
                  ? "the same " + count(s.a->encoding.size(), "token") + " in A and B"
                  : count(c.alignment.size(), "token") + " shared by A (" + digit_groups(s.a->encoding.size()) +
                        ") and B (" + digit_groups(s.b->encoding.size()) + "): CKA on those; no difference map";
  if (!c.same_shape()) o.caption += "; " + c.shared_grid();
  canvas_.set(compare_figure(kFigureNames[shown_], view, o));
}

CompareActions ComparePanel::draw(const PanelContext& c, const ComparisonSnapshot* s, const CompareStatus& status,
                                  const std::string& a_model, const std::vector<std::string>& recent,
                                  const std::function<void(ViewState&)>& controls) {
  CompareActions actions;
  // Once B is chosen its choice folds away, leaving the room to the figure.
  bool edited = false;
  if (!status.active) {
    actions.start = draw_choice(a_model, recent, edited);
  } else {
    ImGui::SetNextItemOpen(false, ImGuiCond_Appearing);
    const std::string b = choice_.other_model ? short_name(choice_.model) : "this model on another text";
    if (ImGui::CollapsingHeader(("B: " + b + " (open to change)###choose b").c_str()))
      actions.start = draw_choice(a_model, recent, edited);
  }
  if (edited && status.active && !choice_.other_model) actions.text_b = choice_.text;
  if (!status.active) {
    ImGui::TextDisabled("Choose B above and press Compare: every head of A beside the same head of B.");
    return actions;
  }
  draw_status(status);
  for (int k = 0; k < kShownCount; ++k) {
    if (k) same_line_if_fits(ImGui::CalcTextSize(kShown[k]).x + ImGui::GetFrameHeight() * 2);
    ImGui::RadioButton(kShown[k], &shown_, k);
  }
  ViewState state = c.state;
  if (controls) controls(state);
  if (!(state == c.state)) actions.panel.state = state;
  if (!s || !s->comparison) {
    if (s && !s->error.empty())
      ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", s->error.c_str());
    else
      ImGui::TextDisabled("Waiting for both analyses...");
    return actions;
  }
  const FigureOptions options = figure_options(state);
  const std::string key = std::to_string(s->serial) + "|" + std::to_string(shown_) + "|" + figure_key(0, options);
  if (key != key_) {
    key_ = key;
    error_.clear();
    try {
      rebuild(*s, options);
    } catch (const std::exception& e) {
      canvas_.set({});
      error_ = error_message(e);
    }
  }
  if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", error_.c_str());
  const CanvasHover hover = draw_zoomable_figure(canvas_, zoom, c, actions.panel);
  if (shown_ == 1 && hover.clicked && hover.row >= 0) {  // a cell of the what-changed grid focuses its head
    ViewState focused = actions.panel.state.value_or(c.state);
    focused.layer = hover.row, focused.head = hover.col, focused.layer_sum = false;
    actions.panel.state = focused;
  }
  return actions;
}

}  // namespace attnscope::ui
