#include "controls/lines_controls.h"

#include <imgui.h>

#include <algorithm>
#include <string>

namespace attnscope::ui {

void lines_controls(ViewState& s, const ModelShape& model) {
  focus_controls(s, model);
  if (s.layer_sum) return;
  ImGui::TextUnformatted("with heads");
  for (int h = 0; h < model.heads; ++h) {
    if (h == s.head) continue;  // the focused head is always drawn
    bool on = std::find(s.heads_shown.begin(), s.heads_shown.end(), h) != s.heads_shown.end();
    flowing_check(std::to_string(h).c_str(), &on);
    if (on) {
      if (std::find(s.heads_shown.begin(), s.heads_shown.end(), h) == s.heads_shown.end()) s.heads_shown.push_back(h);
    } else {
      std::erase(s.heads_shown, h);
    }
  }
}

}  // namespace attnscope::ui
