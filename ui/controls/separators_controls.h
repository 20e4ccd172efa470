#pragma once
// The Separators view's controls: where the separators come from, and which tokens took the most
// column attention (with why the mask may show one colour only).
#include "analysis_worker.h"
#include "controls/view_controls.h"

namespace attnscope::ui {

// `shown`: the analysis on screen, or null. True when the analysis's settings changed.
bool separators_controls(ViewState& s, const ModelShape& model, AnalysisSettings& analysis,
                         const AnalysisSnapshot* shown);

}  // namespace attnscope::ui
