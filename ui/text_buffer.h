#pragma once
// The text being edited, with its cursor, selection and undo history: what a text editor does
// with keys, independent of how it is drawn (the ImGui widget is text_editor.h). Positions are
// byte offsets into the UTF-8 text, always at the start of a code point.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnscope::ui {

class TextBuffer {
 public:
  explicit TextBuffer(std::string text = {});

  const std::string& text() const { return text_; }
  size_t cursor() const { return cursor_; }
  size_t anchor() const { return anchor_; }
  bool has_selection() const { return cursor_ != anchor_; }
  std::pair<size_t, size_t> selection() const;  // [first, last)
  std::string selected_text() const;
  uint64_t version() const { return version_; }  // changes with every change of the text

  // Line ends arrive as LF whatever they were (CR LF, CR) in a file or a paste.
  // Replaces the whole text (opening a file, an example): one step of the undo history.
  void set_text(std::string text);
  // Typing and pasting: replaces the selection. Consecutive typed characters undo together,
  // a word at a time.
  void insert(std::string_view text, bool typed = false);
  void erase_backward(bool word);  // Backspace (Ctrl: to the start of the word)
  void erase_forward(bool word);   // Delete

  void move_to(size_t position, bool extend);  // extend: keep the anchor (Shift)
  void move_left(bool word, bool extend);
  void move_right(bool word, bool extend);
  void move_to_start(bool extend) { move_to(0, extend); }
  void move_to_end(bool extend) { move_to(text_.size(), extend); }
  void select_all();
  void select_word_at(size_t position);       // double click
  void select_paragraph_at(size_t position);  // triple click: the line between two line ends

  bool undo();
  bool redo();
  bool can_undo() const { return !undo_.empty(); }
  bool can_redo() const { return !redo_.empty(); }

  // The start of the code point before / after `position`, and of the word around it.
  size_t previous_char(size_t position) const;
  size_t next_char(size_t position) const;
  size_t word_start(size_t position) const;
  size_t word_end(size_t position) const;

 private:
  struct State {
    std::string text;
    size_t cursor, anchor;
  };
  void replace(size_t first, size_t last, std::string_view with, bool typed);
  void remember(bool typed, std::string_view inserted);
  // Undo and redo alike: the newest state of `from` becomes current, the current one goes on `to`.
  bool restore(std::vector<State>& from, std::vector<State>& to);

  std::string text_;
  size_t cursor_ = 0, anchor_ = 0;
  uint64_t version_ = 0;
  std::vector<State> undo_, redo_;
  bool typing_ = false;  // the last step was typing that the next typed character may join
};

}  // namespace attnscope::ui
