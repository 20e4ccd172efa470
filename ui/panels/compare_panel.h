#pragma once
// Compare mode: what B is (another model on the same text, or another text on the same model),
// and A beside B for the focused head (with B - A where the tokens are the same), the "what
// changed" grid of every head, both runs' statistics of the focused layer, or any other view's
// figure of A beside B's (docs/compare.md). The focus is the explorer's, so the arrows move A and B together.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "comparison_job.h"
#include "figure_canvas.h"
#include "text_editor.h"
#include "panels/panel_context.h"

namespace attnscope::ui {

struct CompareChoice {
  bool other_model = true;  // B is another model on A's text; else another text on A's model
  std::string model;        // B's model (folder or id) when other_model
  std::string text;         // B's text otherwise
  bool operator==(const CompareChoice&) const = default;
};

// What the panel shows of B's side while it loads and runs.
struct CompareStatus {
  bool active = false;              // a B has been chosen
  ModelStatus model;                // B's worker's model
  bool busy = false;                // B's analysis or the comparison is under way
  std::optional<double> comparing;  // the comparison's share done, while a long one runs
  std::string error;                // B's last analysis failed, or the comparison did
};

struct CompareActions {
  PanelActions panel;
  std::optional<CompareChoice> start;  // compare with this B (new or changed)
  std::optional<std::string> text_b;   // B's text was edited (B is this model on another text): run it
};

class ComparePanel {
 public:
  // `a_model`: A's model, offered for B's text mode and as the start of B's model field.
  CompareActions draw(const PanelContext& context, const ComparisonSnapshot* comparison, const CompareStatus& status,
                      const std::string& a_model, const std::vector<std::string>& recent_models,
                      const std::function<void(ViewState&)>& controls);
  void set_choice(CompareChoice choice);
  // "side", "changed", "stats", "separators", "pairs", "layers" or "lines" (as --compare-shown gives it).
  void show(const std::string& shown);
  const Figure& figure() const { return canvas_.figure(); }
  float zoom = 1.0f;

 private:
  // Returns the choice when the user asks to compare; `edited` when B's text changed.
  std::optional<CompareChoice> draw_choice(const std::string& a_model, const std::vector<std::string>& recent_models,
                                           bool& edited);
  void draw_status(const CompareStatus& status) const;
  void rebuild(const ComparisonSnapshot& comparison, const FigureOptions& options);

  CompareChoice choice_;
  TextEditor text_b_;  // wraps like A's editor, so a pasted paragraph reads as one
  int shown_ = 0;      // an index into the figures offered (compare_panel.cpp)
  FigureCanvas canvas_;
  std::string key_, error_;
};

}  // namespace attnscope::ui
