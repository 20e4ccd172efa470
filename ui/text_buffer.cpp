#include "text_buffer.h"

#include <algorithm>
#include <cctype>

namespace attnscope::ui {
namespace {

constexpr size_t kUndoSteps = 500;

bool continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Letters, digits and anything beyond ASCII make words; spaces and ASCII punctuation part them.
bool word_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || std::isalnum(u) || c == '_' || c == '\'';
}

// Line ends from Windows (CR LF) and old Macs (CR) become LF: a CR is drawn as nothing, so the
// cursor would seem to stick on it, and every line would keep an invisible character.
std::string with_lf_line_ends(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r')
      out += text[i];
    else if (i + 1 == text.size() || text[i + 1] != '\n')
      out += '\n';
  }
  return out;
}

}  // namespace

TextBuffer::TextBuffer(std::string text) : text_(with_lf_line_ends(text)), cursor_(text_.size()), anchor_(cursor_) {}

std::pair<size_t, size_t> TextBuffer::selection() const {
  return {std::min(cursor_, anchor_), std::max(cursor_, anchor_)};
}

std::string TextBuffer::selected_text() const {
  const auto [first, last] = selection();
  return text_.substr(first, last - first);
}

size_t TextBuffer::previous_char(size_t p) const {
  if (p == 0) return 0;
  do --p;
  while (p > 0 && continuation_byte(text_[p]));
  return p;
}

size_t TextBuffer::next_char(size_t p) const {
  if (p >= text_.size()) return text_.size();
  do ++p;
  while (p < text_.size() && continuation_byte(text_[p]));
  return p;
}

size_t TextBuffer::word_start(size_t p) const {
  while (p > 0 && !word_byte(text_[previous_char(p)])) p = previous_char(p);  // spaces before the word
  while (p > 0 && word_byte(text_[previous_char(p)])) p = previous_char(p);
  return p;
}

size_t TextBuffer::word_end(size_t p) const {
  while (p < text_.size() && !word_byte(text_[p])) p = next_char(p);
  while (p < text_.size() && word_byte(text_[p])) p = next_char(p);
  return p;
}

void TextBuffer::remember(bool typed, std::string_view inserted) {
  // Typing joins the step before it until a word ends, so undo takes back a word at a time.
  const bool joins = typed && typing_ && !undo_.empty();
  if (!joins) {
    undo_.push_back({text_, cursor_, anchor_});
    if (undo_.size() > kUndoSteps) undo_.erase(undo_.begin());
  }
  redo_.clear();
  typing_ = typed && !inserted.empty() && word_byte(inserted.back());
}

void TextBuffer::replace(size_t first, size_t last, std::string_view with, bool typed) {
  remember(typed, with);
  text_.replace(first, last - first, with);
  cursor_ = anchor_ = first + with.size();
  ++version_;
}

void TextBuffer::set_text(std::string text) {
  if (text.find('\r') != std::string::npos) text = with_lf_line_ends(text);
  if (text == text_) return;
  remember(false, {});
  text_ = std::move(text);
  cursor_ = anchor_ = text_.size();
  ++version_;
}

void TextBuffer::insert(std::string_view text, bool typed) {
  const auto [first, last] = selection();
  if (text.empty() && first == last) return;
  if (text.find('\r') != std::string_view::npos) return replace(first, last, with_lf_line_ends(text), false);
  replace(first, last, text, typed && first == last);
}

void TextBuffer::erase_backward(bool word) {
  if (has_selection()) return insert({});
  if (cursor_ == 0) return;
  replace(word ? word_start(cursor_) : previous_char(cursor_), cursor_, {}, false);
}

void TextBuffer::erase_forward(bool word) {
  if (has_selection()) return insert({});
  if (cursor_ >= text_.size()) return;
  replace(cursor_, word ? word_end(cursor_) : next_char(cursor_), {}, false);
}

void TextBuffer::move_to(size_t position, bool extend) {
  cursor_ = std::min(position, text_.size());
  while (cursor_ > 0 && cursor_ < text_.size() && continuation_byte(text_[cursor_])) --cursor_;
  if (!extend) anchor_ = cursor_;
  typing_ = false;
}

void TextBuffer::move_left(bool word, bool extend) {
  if (has_selection() && !extend && !word) return move_to(selection().first, false);
  move_to(word ? word_start(cursor_) : previous_char(cursor_), extend);
}

void TextBuffer::move_right(bool word, bool extend) {
  if (has_selection() && !extend && !word) return move_to(selection().second, false);
  move_to(word ? word_end(cursor_) : next_char(cursor_), extend);
}

void TextBuffer::select_all() {
  anchor_ = 0;
  cursor_ = text_.size();
  typing_ = false;
}

void TextBuffer::select_word_at(size_t position) {
  move_to(position, false);
  size_t first = cursor_, last = cursor_;
  while (first > 0 && word_byte(text_[previous_char(first)])) first = previous_char(first);
  while (last < text_.size() && word_byte(text_[last])) last = next_char(last);
  anchor_ = first;
  cursor_ = last;
}

void TextBuffer::select_paragraph_at(size_t position) {
  move_to(position, false);
  const size_t start = cursor_ == 0 ? std::string::npos : text_.rfind('\n', cursor_ - 1);
  const size_t end = text_.find('\n', cursor_);
  anchor_ = start == std::string::npos ? 0 : start + 1;
  cursor_ = end == std::string::npos ? text_.size() : end;
}

bool TextBuffer::restore(std::vector<State>& from, std::vector<State>& to) {
  if (from.empty()) return false;
  to.push_back({text_, cursor_, anchor_});
  State s = std::move(from.back());
  from.pop_back();
  text_ = std::move(s.text);
  cursor_ = s.cursor;
  anchor_ = s.anchor;
  typing_ = false;
  ++version_;
  return true;
}

bool TextBuffer::undo() { return restore(undo_, redo_); }

bool TextBuffer::redo() { return restore(redo_, undo_); }

}  // namespace attnscope::ui
