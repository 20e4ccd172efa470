#pragma once
// The Head view's controls: the matrix, or the queries and keys of one token (bertviz's neuron view).
#include "controls/view_controls.h"

namespace attnscope::ui {

// `tokens`: the shown text's length (the query token's range).
void head_controls(ViewState& s, const ModelShape& model, int tokens);

}  // namespace attnscope::ui
