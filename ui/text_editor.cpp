#include "text_editor.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>

namespace attnscope::ui {
namespace {

CharWidth font_widths() {
  ImFont* font = ImGui::GetFont();
  const float scale = ImGui::GetFontSize() / font->FontSize;
  return [font, scale](char32_t c) {
    if (c == U'\t') return font->GetCharAdvance(' ') * 4 * scale;
    return font->GetCharAdvance(c <= 0xFFFF ? static_cast<ImWchar>(c) : static_cast<ImWchar>(0xFFFD)) * scale;
  };
}

bool pressed(ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key), true); }
bool pressed_glfw(int key) { return ImGui::IsKeyPressed(key, true); }  // letters: GLFW key codes (ImGui 1.86)

void append_utf8(std::string& out, unsigned int c) {
  if (c < 0x80)
    out += static_cast<char>(c);
  else if (c < 0x800)
    out += {static_cast<char>(0xC0 | c >> 6), static_cast<char>(0x80 | (c & 0x3F))};
  else if (c < 0x10000)
    out += {static_cast<char>(0xE0 | c >> 12), static_cast<char>(0x80 | (c >> 6 & 0x3F)),
            static_cast<char>(0x80 | (c & 0x3F))};
  else
    out += {static_cast<char>(0xF0 | c >> 18), static_cast<char>(0x80 | (c >> 12 & 0x3F)),
            static_cast<char>(0x80 | (c >> 6 & 0x3F)), static_cast<char>(0x80 | (c & 0x3F))};
}

}  // namespace

void TextEditor::handle_keys() {
  const ImGuiIO& io = ImGui::GetIO();
  TextBuffer& b = buffer_;
  const uint64_t before = b.version();
  const size_t cursor_before = b.cursor(), anchor_before = b.anchor();
  const bool ctrl = io.KeyCtrl, shift = io.KeyShift;
  const CharWidth width = font_widths();
  const auto vertical = [&](int lines) {
    if (lines_.empty()) return;
    const size_t line = line_of(lines_, b.cursor());
    if (wanted_x_ < 0) wanted_x_ = x_of(b.text(), lines_[line], b.cursor(), width);
    const long target = std::clamp<long>(static_cast<long>(line) + lines, 0, static_cast<long>(lines_.size()) - 1);
    const float keep = wanted_x_;
    b.move_to(position_at(b.text(), lines_[static_cast<size_t>(target)], keep, width), shift);
    wanted_x_ = keep;
  };
  bool keeps_x = false;
  if (pressed(ImGuiKey_LeftArrow)) b.move_left(ctrl, shift);
  if (pressed(ImGuiKey_RightArrow)) b.move_right(ctrl, shift);
  if (pressed(ImGuiKey_UpArrow)) vertical(-1), keeps_x = true;
  if (pressed(ImGuiKey_DownArrow)) vertical(1), keeps_x = true;
  if (pressed(ImGuiKey_PageUp)) vertical(-static_cast<int>(page_lines_)), keeps_x = true;
  if (pressed(ImGuiKey_PageDown)) vertical(static_cast<int>(page_lines_)), keeps_x = true;
  if (pressed(ImGuiKey_Home)) {
    if (ctrl || lines_.empty())
      b.move_to_start(shift);
    else
      b.move_to(lines_[line_of(lines_, b.cursor())].begin, shift);
  }
  if (pressed(ImGuiKey_End)) {
    if (ctrl || lines_.empty())
      b.move_to_end(shift);
    else
      b.move_to(lines_[line_of(lines_, b.cursor())].end, shift);
  }
  if (pressed(ImGuiKey_Backspace)) b.erase_backward(ctrl);
  if (pressed(ImGuiKey_Delete)) b.erase_forward(ctrl);
  if (pressed(ImGuiKey_Enter) || pressed(ImGuiKey_KeyPadEnter)) b.insert("\n");
  if (ctrl && pressed(ImGuiKey_A)) b.select_all();
  if (ctrl && pressed(ImGuiKey_C)) copy();
  if (ctrl && pressed(ImGuiKey_X)) cut();
  if (ctrl && pressed(ImGuiKey_V)) paste();
  if (ctrl && !shift && pressed(ImGuiKey_Z)) b.undo();
  if (ctrl && ((shift && pressed(ImGuiKey_Z)) || pressed(ImGuiKey_Y))) b.redo();
  (void)pressed_glfw;
  // Typed characters (Ctrl held: a shortcut, not text).
  std::string typed = std::move(pending_typed_);
  pending_typed_.clear();
  if (!ctrl)
    for (ImWchar c : ImGui::GetIO().InputQueueCharacters)
      if (c >= 0x20 && c != 0x7F) append_utf8(typed, c);
  for (size_t p = 0; p < typed.size();) {  // one character at a time, as undo groups typing by word
    size_t q = p + 1;
    while (q < typed.size() && (static_cast<unsigned char>(typed[q]) & 0xC0) == 0x80) ++q;
    b.insert(std::string_view(typed).substr(p, q - p), true);
    p = q;
  }
  if (!keeps_x) wanted_x_ = -1;
  if (b.cursor() != cursor_before || b.anchor() != anchor_before || b.version() != before) scroll_to_cursor_ = true;
}

void TextEditor::handle_mouse(const std::vector<VisualLine>& lines, float line_height, bool hovered) {
  const ImGuiIO& io = ImGui::GetIO();
  const CharWidth width = font_widths();
  const auto position_under_mouse = [&] {
    const float y = io.MousePos.y - origin_y_;
    const auto line = static_cast<size_t>(std::clamp(y / line_height, 0.0f, static_cast<float>(lines.size() - 1)));
    return position_at(buffer_.text(), lines[line], io.MousePos.x - origin_x_, width);
  };
  if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
    focused_ = hovered;  // a click elsewhere leaves the editor
    if (hovered) {
      buffer_.move_to(position_under_mouse(), io.KeyShift);
      dragging_ = true;
    }
  }
  if (hovered && ImGui::GetMouseClickedCount(ImGuiMouseButton_Left) >= 2) {
    if (ImGui::GetMouseClickedCount(ImGuiMouseButton_Left) == 2)
      buffer_.select_word_at(position_under_mouse());
    else
      buffer_.select_paragraph_at(position_under_mouse());
    dragging_ = false;
  }
  if (dragging_ && ImGui::IsMouseDragging(ImGuiMouseButton_Left)) {
    buffer_.move_to(position_under_mouse(), true);
    scroll_to_cursor_ = true;  // dragged past an edge: the text scrolls with the selection
  }
  if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) dragging_ = false;
}

// The clipboard's commands, for the keys and the menu alike.
void TextEditor::copy() {
  if (buffer_.has_selection()) ImGui::SetClipboardText(buffer_.selected_text().c_str());
}

void TextEditor::cut() {
  copy();
  buffer_.insert({});
}

void TextEditor::paste() {
  if (const char* clip = ImGui::GetClipboardText()) buffer_.insert(clip);
}

// Right click: the editing commands for the mouse, with their keys beside them.
void TextEditor::edit_menu() {
  if (!ImGui::BeginPopupContextItem("edit menu")) return;
  focused_ = true;
  TextBuffer& b = buffer_;
  if (ImGui::MenuItem("Undo", "Ctrl+Z", false, b.can_undo())) b.undo();
  if (ImGui::MenuItem("Redo", "Ctrl+Y", false, b.can_redo())) b.redo();
  ImGui::Separator();
  if (ImGui::MenuItem("Cut", "Ctrl+X", false, b.has_selection())) cut();
  if (ImGui::MenuItem("Copy", "Ctrl+C", false, b.has_selection())) copy();
  if (ImGui::MenuItem("Paste", "Ctrl+V")) paste();
  ImGui::Separator();
  if (ImGui::MenuItem("Select all", "Ctrl+A")) b.select_all();
  ImGui::EndPopup();
}

void TextEditor::draw_lines(float line_height, const CharWidth& char_width) const {
  const ImVec2 origin(origin_x_, origin_y_);
  ImDrawList* list = ImGui::GetWindowDrawList();
  const std::string& text = buffer_.text();
  const auto [first, last] = buffer_.selection();
  const float top = ImGui::GetScrollY(), bottom = top + ImGui::GetWindowHeight();
  const ImU32 text_colour = ImGui::GetColorU32(ImGuiCol_Text),
              selection_colour = ImGui::GetColorU32(ImGuiCol_TextSelectedBg);
  for (size_t k = 0; k < lines_.size(); ++k) {
    const float y = line_height * static_cast<float>(k);
    if (y + line_height < top || y > bottom) continue;  // only the lines in view are drawn
    const VisualLine& line = lines_[k];
    if (last > line.begin && first <= line.end && first != last) {
      const float x0 = x_of(text, line, std::max(first, line.begin), char_width);
      const float x1 = last > line.end ? x_of(text, line, line.end, char_width) + char_width(U' ')
                                       : x_of(text, line, last, char_width);
      list->AddRectFilled(ImVec2(origin.x + x0, origin.y + y), ImVec2(origin.x + x1, origin.y + y + line_height),
                          selection_colour);
    }
    list->AddText(ImVec2(origin.x, origin.y + y), text_colour, text.data() + line.begin, text.data() + line.end);
  }
}

bool TextEditor::draw(const char* id, float height) {
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
  ImGui::BeginChild(id, ImVec2(-1, height), true, ImGuiWindowFlags_NoMove);
  const float line_height = ImGui::GetTextLineHeight();
  width_ = ImGui::GetContentRegionAvail().x;
  const uint64_t version = buffer_.version();
  if (focused_) handle_keys();
  const CharWidth char_width = font_widths();
  lines_ = wrap_text(buffer_.text(), width_, char_width);
  const uint64_t laid_out = buffer_.version();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  origin_x_ = origin.x;
  origin_y_ = origin.y;
  page_lines_ = std::max(1.0f, std::floor(ImGui::GetWindowHeight() / line_height) - 1);
  const ImVec2 size(width_, line_height * static_cast<float>(lines_.size()));
  ImGui::InvisibleButton("text", ImVec2(std::max(1.0f, size.x), std::max(ImGui::GetContentRegionAvail().y, size.y)));
  const bool hovered = ImGui::IsItemHovered();
  if (hovered) ImGui::SetMouseCursor(ImGuiMouseCursor_TextInput);
  // The click that lands here makes the surface the active item, which plain IsWindowHovered()
  // reports as "not hovered" in that very frame: the focus would never be taken.
  handle_mouse(lines_, line_height, ImGui::IsWindowHovered(ImGuiHoveredFlags_AllowWhenBlockedByActiveItem));
  edit_menu();
  if (buffer_.version() != laid_out) {  // an edit from the menu: laid out again, its cursor in view
    lines_ = wrap_text(buffer_.text(), width_, char_width);
    scroll_to_cursor_ = true;
  }
  if (focused_) ImGui::GetCurrentContext()->WantTextInputNextFrame = 1;  // the explorer's shortcuts stay quiet

  ImDrawList* list = ImGui::GetWindowDrawList();
  const std::string& text = buffer_.text();
  const float top = ImGui::GetScrollY(), bottom = top + ImGui::GetWindowHeight();
  const ImU32 text_colour = ImGui::GetColorU32(ImGuiCol_Text);
  draw_lines(line_height, char_width);
  const size_t cursor_line = line_of(lines_, buffer_.cursor());
  const float cursor_y = line_height * static_cast<float>(cursor_line);
  if (focused_) {
    const float x = origin.x + x_of(text, lines_[cursor_line], buffer_.cursor(), char_width);
    list->AddLine(ImVec2(x, origin.y + cursor_y), ImVec2(x, origin.y + cursor_y + line_height), text_colour, 1.5f);
  }
  if (scroll_to_cursor_) {
    if (cursor_y < top)
      ImGui::SetScrollY(cursor_y);
    else if (cursor_y + line_height > bottom - ImGui::GetStyle().WindowPadding.y * 2)
      ImGui::SetScrollY(cursor_y + line_height - ImGui::GetWindowHeight() + ImGui::GetStyle().WindowPadding.y * 2);
    scroll_to_cursor_ = false;
  }
  if (text.empty() && !focused_)
    list->AddText(origin, ImGui::GetColorU32(ImGuiCol_TextDisabled), "Type or paste a text here");
  ImGui::EndChild();
  ImGui::PopStyleColor();
  return buffer_.version() != version;
}

}  // namespace attnscope::ui
