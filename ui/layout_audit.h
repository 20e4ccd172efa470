#pragma once
// What the frame just drawn cut off: tab labels shrunk below their text (drawn with an ellipsis),
// and windows whose content is wider than they are with no scroll bar to reach the rest. The
// screenshot mode prints these, and the GUI tests ask for none at 1280 x 800 and 1920 x 1080, in
// normal and presentation mode.
#include <string>
#include <vector>

namespace attnscope::ui {

class LayoutAudit {
 public:
  // Between BeginTabBar and EndTabBar: notes every tab of the bar that is cut.
  void check_tab_bar();
  // After ImGui::Render: notes every visible window whose content is cut on the right.
  void check_windows();
  const std::vector<std::string>& findings() const { return findings_; }
  void clear() { findings_.clear(); }

 private:
  std::vector<std::string> findings_;
};

}  // namespace attnscope::ui
