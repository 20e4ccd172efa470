#pragma once
// The text editor of the explorer: a paragraph reads as a paragraph (word wrap), and the keys
// work as in any editor: arrows (Ctrl: by word; Shift: select), Home / End, Ctrl+Home / End,
// Page Up / Down, Ctrl+A, Ctrl+C / X / V, Ctrl+Z, Ctrl+Y or Ctrl+Shift+Z, Backspace / Delete
// (Ctrl: a word), Enter; click, Shift+click, drag, double click (a word) and triple click (a
// paragraph) with the mouse, and a right click's menu (undo, redo, cut, copy, paste, select
// all). Dear ImGui's own multi-line input does not wrap, hence this widget; the editing itself is
// TextBuffer.
// The cursor does not blink, so an idle window has nothing to redraw.
#include <string>
#include <vector>

#include "text_buffer.h"
#include "text_layout.h"

namespace attnscope::ui {

class TextEditor {
 public:
  // Draws the editor `height` pixels high and the full width; true when the text changed.
  bool draw(const char* id, float height);
  TextBuffer& buffer() { return buffer_; }
  const std::string& text() const { return buffer_.text(); }
  bool focused() const { return focused_; }
  void focus() {
    focused_ = true;
    scroll_to_cursor_ = true;
  }
  // Typed characters for scripted input (the typing benchmark); the same path as the keyboard.
  void type(const std::string& utf8) { pending_typed_ += utf8; }

 private:
  void handle_keys();
  void edit_menu();
  void copy();
  void cut();
  void paste();
  void handle_mouse(const std::vector<VisualLine>& lines, float line_height, bool hovered);
  // The lines in view at this frame's origin, the selection behind them.
  void draw_lines(float line_height, const CharWidth& char_width) const;

  TextBuffer buffer_;
  bool focused_ = false, dragging_ = false, scroll_to_cursor_ = false;
  float wanted_x_ = -1;  // the x that Up / Down keep to
  std::string pending_typed_;
  // Frame geometry, for the mouse and the keys of the next frame.
  float origin_x_ = 0, origin_y_ = 0, width_ = 0, page_lines_ = 10;
  std::vector<VisualLine> lines_;
};

}  // namespace attnscope::ui
