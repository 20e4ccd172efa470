#pragma once
// The Lines view's controls: the focused head, and the other heads drawn with it.
#include "controls/view_controls.h"

namespace attnscope::ui {

void lines_controls(ViewState& s, const ModelShape& model);

}  // namespace attnscope::ui
