#pragma once
// The Layers view's controls: which map each layer shows, and which layers are shown.
#include "controls/view_controls.h"

namespace attnscope::ui {

void layers_controls(ViewState& s, const ModelShape& model);

}  // namespace attnscope::ui
