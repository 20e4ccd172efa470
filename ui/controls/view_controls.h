#pragma once
// The controls a view shows above its figure are in files of their own, one a view (head_controls,
// layers_controls, lines_controls, separators_controls); these are the pieces they share. Each
// writes the view's state; a control that changes the analysis's settings returns true, and the
// explorer then asks for a new run.
#include <optional>

#include "analysis/analysis_settings.h"
#include "view_state.h"

namespace attnscope::ui {

// The loaded model's shape, as the sliders need it.
struct ModelShape {
  int layers = 0, heads = 0;
};

// A slider (0 .. top) or a check box that goes beside the previous item while it fits.
void flowing_slider(const char* label, int* value, int top);
bool flowing_check(const char* label, bool* value, const char* tooltip = nullptr);  // true: changed

// The layer, the head and "layer sum": every view that shows one head has them.
void focus_controls(ViewState& s, const ModelShape& model);
// The focus, and which matrix is shown (with its options: zero diagonal, rollout of the norm maps).
void matrix_controls(ViewState& s, const ModelShape& model);

// A combo box of an input of the analysis, beside the previous controls: the new index when it changed.
std::optional<int> input_combo(const char* label, int current, const char* items, float fit_width, const char* help);
// Which matrix a head's pairs, and so its statistics, come from (S by default, as METHOD.md).
bool pair_source_control(AnalysisSettings& analysis);

}  // namespace attnscope::ui
