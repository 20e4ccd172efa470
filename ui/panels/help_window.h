#pragma once
// The keyboard shortcuts, and what each view shows.
namespace attnscope::ui {

struct Shortcut {
  const char* keys;
  const char* action;
};
const Shortcut* shortcuts(int& count);

// Draws the help window while `open` is true.
void draw_help_window(bool& open);

}  // namespace attnscope::ui
