// The explorer's text editor without a window: editing, selection, undo and redo (TextBuffer);
// word wrap and the way between positions and points (text_layout); and the typing benchmark's
// bookkeeping. Sections, in order: TextBuffer, TextLayout, TypingBench, TextEditorWidget (the
// widget in headless ImGui frames: clicks, drags, the right click's menu).
#include <gtest/gtest.h>

#include <imgui.h>
#include <imgui_internal.h>

#include "text_buffer.h"
#include "text_editor.h"
#include "text_layout.h"
#include "typing_bench.h"

namespace attnscope::ui {
namespace {

TEST(TextBuffer, SelectAllThenTypingReplacesTheText) {
  TextBuffer b("an old paragraph");
  b.select_all();
  b.insert("N", true);
  b.insert("e", true);
  b.insert("w", true);
  EXPECT_EQ(b.text(), "New");
  EXPECT_EQ(b.cursor(), 3u);
  EXPECT_FALSE(b.has_selection());
}

TEST(TextBuffer, UndoTakesBackAWordAtATimeAndRedoReplaysIt) {
  TextBuffer b("");
  for (char c : std::string("the cat sat")) b.insert(std::string(1, c), true);
  EXPECT_TRUE(b.undo());
  EXPECT_EQ(b.text(), "the cat ");
  EXPECT_TRUE(b.undo());
  EXPECT_EQ(b.text(), "the ");
  EXPECT_TRUE(b.redo());
  EXPECT_EQ(b.text(), "the cat ");
  b.insert("!", false);  // a new edit drops what could be redone
  EXPECT_FALSE(b.redo());
  EXPECT_EQ(b.text(), "the cat !");
  while (b.undo()) {
  }
  EXPECT_EQ(b.text(), "");
}

TEST(TextBuffer, LineEndsOfWindowsAndOldMacsBecomeLineFeeds) {
  TextBuffer b("one\r\ntwo\rthree\n");
  EXPECT_EQ(b.text(), "one\ntwo\nthree\n");
  b.set_text("a\r\n\r\nb\r");
  EXPECT_EQ(b.text(), "a\n\nb\n");
  EXPECT_EQ(b.cursor(), b.text().size());
  b.move_to(1, false);
  b.insert("\r\nx\r", false);  // a paste from a Windows clipboard
  EXPECT_EQ(b.text(), "a\nx\n\n\nb\n");
  EXPECT_EQ(b.cursor(), 4u);
  EXPECT_TRUE(b.undo());
  EXPECT_EQ(b.text(), "a\n\nb\n");
}

TEST(TextBuffer, AParagraphIsTheTextBetweenTwoLineEnds) {
  TextBuffer b("first line\nsecond one\n\nlast");
  b.select_paragraph_at(14);
  EXPECT_EQ(b.selected_text(), "second one");
  b.select_paragraph_at(0);
  EXPECT_EQ(b.selected_text(), "first line");
  b.select_paragraph_at(b.text().size());
  EXPECT_EQ(b.selected_text(), "last");
  b.select_paragraph_at(22);  // the empty line
  EXPECT_FALSE(b.has_selection());
}

TEST(TextBuffer, SetTextIsOneStepOfTheHistory) {
  TextBuffer b("draft");
  b.set_text("a pasted file");
  EXPECT_EQ(b.cursor(), b.text().size());
  EXPECT_TRUE(b.undo());
  EXPECT_EQ(b.text(), "draft");
}

TEST(TextBuffer, MovesAndErasesByCodePointAndByWord) {
  TextBuffer b("caf\u00e9 na\u00efve");  // é and ï are two bytes each
  b.move_to_end(false);
  b.erase_backward(false);
  EXPECT_EQ(b.text(), "caf\u00e9 na\u00efv");
  b.move_left(false, false);
  b.move_left(false, false);
  EXPECT_EQ(b.cursor(), 8u);  // before the two-byte ï, never inside it
  b.move_left(true, false);
  EXPECT_EQ(b.cursor(), 6u);  // start of "naïv"
  b.erase_backward(true);
  EXPECT_EQ(b.text(), "na\u00efv");
  b.move_to_start(false);
  b.move_right(true, true);  // Ctrl+Shift+Right selects the word
  EXPECT_EQ(b.selected_text(), "na\u00efv");
  b.select_word_at(1);
  EXPECT_EQ(b.selection(), (std::pair<size_t, size_t>{0, 5}));
  b.move_to(2, false);  // inside nothing: a move never lands within a code point
  b.move_to(3, false);
  EXPECT_EQ(b.cursor(), 2u);
}

TEST(TextBuffer, DeleteForwardAndCutOfASelection) {
  TextBuffer b("one two");
  b.move_to(3, false);
  b.erase_forward(false);
  EXPECT_EQ(b.text(), "onetwo");
  b.move_to(0, false);
  b.move_to(3, true);
  EXPECT_EQ(b.selected_text(), "one");
  b.erase_backward(false);  // with a selection, Backspace removes just the selection
  EXPECT_EQ(b.text(), "two");
}

// Every character is 1 unit wide: a line of width 10 holds 10 characters.
const CharWidth kUnit = [](char32_t) { return 1.0f; };

std::vector<std::string> lines_of(const std::string& text, float width) {
  std::vector<std::string> out;
  for (const VisualLine& l : wrap_text(text, width, kUnit)) out.push_back(text.substr(l.begin, l.end - l.begin));
  return out;
}

TEST(TextLayout, WrapsAtSpacesKeepsParagraphsAndCutsLongWords) {
  EXPECT_EQ(lines_of("the keeper climbed the stairs", 10),
            (std::vector<std::string>{"the keeper ", "climbed ", "the stairs"}));
  EXPECT_EQ(lines_of("a\n\nb", 10), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(lines_of("abcdefghijklmnopqrstuvwxy", 10), (std::vector<std::string>{"abcdefghij", "klmnopqrst", "uvwxy"}));
  EXPECT_EQ(lines_of("", 10), (std::vector<std::string>{""}));
  EXPECT_EQ(lines_of("caf\u00e9 caf\u00e9 caf\u00e9", 9),
            (std::vector<std::string>{"caf\u00e9 caf\u00e9 ", "caf\u00e9"}));  // width in characters, not bytes
}

TEST(TextLayout, PositionsAndPointsMapBothWays) {
  const std::string text = "the keeper climbed the stairs";
  const auto lines = wrap_text(text, 10, kUnit);
  EXPECT_EQ(line_of(lines, 0), 0u);
  EXPECT_EQ(line_of(lines, 11), 1u);  // where a line is cut, the position belongs to the next line
  EXPECT_EQ(line_of(lines, text.size()), 2u);
  EXPECT_FLOAT_EQ(x_of(text, lines[1], 14, kUnit), 3.0f);
  EXPECT_EQ(position_at(text, lines[1], 3.2f, kUnit), 14u);
  EXPECT_EQ(position_at(text, lines[1], 3.6f, kUnit), 15u);  // nearer the next character's start
  EXPECT_EQ(position_at(text, lines[2], 99.0f, kUnit), text.size());
}

TEST(TypingBench, MeasuresFromTheLastKeyOfABurstToTheFrameThatShowsItsText) {
  TypingBench bench({2, 3, 0.1, 0.5});
  bench.analysis_shown(0.9, 0.9, 0.9, 5);  // the text as opened, before any key: not counted
  std::string typed;
  double t = 0;
  for (; typed.size() < 3; t += 0.05) {
    typed += bench.keys_due(t);
    bench.frame_presented(t, 0.01, false);
  }
  EXPECT_TRUE(bench.waiting());
  // The third key went at t = 0.2; the frame at 0.45 shows its analysis.
  bench.analysis_shown(0.1, 0.02, 0.003, 40);
  bench.frame_presented(0.45, 0.01, true);
  EXPECT_FALSE(bench.waiting());
  EXPECT_EQ(bench.keys_due(0.5), "");          // pausing
  EXPECT_EQ(bench.keys_due(0.96).size(), 1u);  // the next burst
  EXPECT_FALSE(bench.done());
  const auto s = bench.summary(7, 2, true);
  EXPECT_NEAR(s["latency_median_ms"].get<double>(), 250.0, 0.01);
  EXPECT_NEAR(s["forward_median_ms"].get<double>(), 100.0, 0.01);
  EXPECT_NEAR(s["analysis_median_ms"].get<double>(), 20.0, 0.01);
  EXPECT_NEAR(s["thumbnails_median_ms"].get<double>(), 3.0, 0.01);
  EXPECT_EQ(s["tokens_continued"], nlohmann::json::array({40.0}));
  EXPECT_EQ(s["typed_at"], "start");
  EXPECT_EQ(s["bursts"], 1);
  EXPECT_EQ(s["frames_to_show_min"], 2);  // the last key's own frame at 0.2, then the one at 0.45
  EXPECT_EQ(s["frames_to_show_max"], 2);
  EXPECT_EQ(s["abandoned_runs"], 2);
  EXPECT_EQ(typed, "qui");
}

// A key's frame that redrew the editor's side alone is a frame, not a whole frame: the targets'
// "2 frames" are frames of the whole window, as the one that shows an analysis is.
TEST(TypingBench, FramesDrawnWholeAreCountedApart) {
  TypingBench bench({1, 2, 0.1, 0.5});
  bench.analysis_shown(0.9, 0.9, 0.9);  // the text as opened
  bench.keys_due(0);
  bench.frame_presented(0.0, 0.004, false, false);
  bench.keys_due(0.1);
  bench.frame_presented(0.1, 0.005, false, false);
  bench.frame_presented(0.3, 0.012, true, true);
  const auto s = bench.summary(7, 0, true);
  EXPECT_EQ(s["frames"], 3);
  EXPECT_EQ(s["whole_frames"], 1);
  EXPECT_NEAR(s["frame_median_ms"].get<double>(), 5.0, 0.01);
  EXPECT_NEAR(s["whole_frame_median_ms"].get<double>(), 12.0, 0.01);
}

// The first burst waits for the text as opened to be shown (or for first_run_wait seconds, where
// it never is); typing at once, it starts with the first ask.
TEST(TypingBench, TheFirstBurstWaitsForTheOpenedTextsAnalysis) {
  TypingBench waiting({1, 2, 0.1, 0.5});
  EXPECT_EQ(waiting.keys_due(0.0), "");
  EXPECT_EQ(waiting.keys_due(5.0), "");
  waiting.frame_presented(5.0, 0.01, false);
  waiting.analysis_shown(4.0, 1.0, 0.0);
  EXPECT_EQ(waiting.keys_due(5.1), "q");
  EXPECT_EQ(waiting.summary(7, 0, false)["typed_after_first_run"], true);
  TypingBench never({1, 2, 0.1, 0.5, TypingPlace::Start, true, 60});
  EXPECT_EQ(never.keys_due(10.0), "");
  EXPECT_EQ(never.keys_due(69.9), "");
  EXPECT_EQ(never.keys_due(70.0), "q");
  TypingBench at_once({1, 2, 0.1, 0.5, TypingPlace::Start, false});
  EXPECT_EQ(at_once.keys_due(0.0), "q");
  EXPECT_EQ(at_once.summary(7, 0, false)["typed_after_first_run"], false);
}

// With a first pause, the first burst starts that long after the first ask that finds the opened
// text shown.
TEST(TypingBench, TheFirstBurstCanWaitAPauseAfterTheOpenedTextIsShown) {
  TypingBench bench({.bursts = 1, .keys_per_burst = 2, .first_pause = 2.0});
  bench.analysis_shown(4.0, 1.0, 0.0);
  EXPECT_EQ(bench.keys_due(5.0), "");
  EXPECT_EQ(bench.keys_due(6.9), "");
  EXPECT_EQ(bench.keys_due(7.0), "q");
  EXPECT_EQ(bench.summary(7, 0, false)["first_pause_s"], 2.0);
}

TEST(TypingBench, PercentilesAreNearestRank) {
  EXPECT_EQ(percentile({5, 1, 3}, 0.5), 3);
  EXPECT_EQ(percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 0.95), 19);
  EXPECT_EQ(percentile({}, 0.5), 0);
}

TEST(TypingBench, TypesAtTheStartTheEndOrTheFirstWordFromTheMiddleOn) {
  const std::string text = "one two three four five";  // 23 bytes: the middle, byte 11, is in "three"
  EXPECT_EQ(typing_position(text, TypingPlace::Start), 0u);
  EXPECT_EQ(typing_position(text, TypingPlace::End), text.size());
  EXPECT_EQ(typing_position(text, TypingPlace::Middle), text.find("four"));
  EXPECT_EQ(typing_position("one\ntwo three", TypingPlace::Middle), 8u);  // after the space past byte 6
  EXPECT_EQ(typing_position("onetwothree", TypingPlace::Middle), 11u);    // no word after the middle: the end
  EXPECT_STREQ(typing_place_name(TypingPlace::Middle), "middle");
  EXPECT_EQ(typing_place_named("middle"), TypingPlace::Middle);
  EXPECT_EQ(typing_place_named("end"), TypingPlace::End);
  EXPECT_EQ(typing_place_named("start"), TypingPlace::Start);
}

// The editor inside a headless Dear ImGui frame (fonts built, nothing rendered), driven by the
// same io fields the GLFW backend fills: a real click must focus it and typed keys must land.
class HeadlessFrames {
 public:
  HeadlessFrames() {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(800, 600);
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }
  ~HeadlessFrames() { ImGui::DestroyContext(); }
  void frame(TextEditor& editor, ImVec2 mouse, bool down, bool right_down = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.DeltaTime = 1.0f / 60;
    io.MousePos = mouse;
    io.MouseDown[0] = down;
    io.MouseDown[1] = right_down;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::Begin("editor window");
    editor.draw("##text", 200);
    ImGui::End();
    ImGui::Render();
  }
};

TEST(TextEditorWidget, AClickInsideFocusesItAndTypedCharactersLand) {
  HeadlessFrames imgui;
  TextEditor editor;
  editor.buffer().set_text("abc");
  const ImVec2 inside(60, 60), outside(400, 500);
  imgui.frame(editor, inside, false);
  imgui.frame(editor, inside, true);  // pressed: the editor's surface becomes the active item
  imgui.frame(editor, inside, false);
  EXPECT_TRUE(editor.focused());
  ImGui::GetIO().AddInputCharacter('x');
  imgui.frame(editor, inside, false);
  EXPECT_EQ(editor.text(), "abcx");
  imgui.frame(editor, outside, true);  // a click elsewhere leaves the editor
  imgui.frame(editor, outside, false);
  EXPECT_FALSE(editor.focused());
  ImGui::GetIO().AddInputCharacter('y');
  imgui.frame(editor, outside, false);
  EXPECT_EQ(editor.text(), "abcx");
}

TEST(TextEditorWidget, DoubleClickSelectsAWordAndTripleClickAParagraph) {
  HeadlessFrames imgui;
  TextEditor editor;
  editor.buffer().set_text("the quick fox\njumps");
  const ImVec2 on_the(40, 36);  // the first line's first word, as laid out in the default font
  imgui.frame(editor, on_the, false);
  for (int click = 1; click <= 3; ++click) {
    imgui.frame(editor, on_the, true);
    imgui.frame(editor, on_the, false);
    if (click == 2) EXPECT_EQ(editor.buffer().selected_text(), "the");
  }
  EXPECT_EQ(editor.buffer().selected_text(), "the quick fox");
}

float editor_scroll() {
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
    if (std::string(w->Name).find("##text") != std::string::npos) return w->Scroll.y;
  return -1;
}

TEST(TextEditorWidget, DraggingPastTheBottomSelectsOnAndScrollsTheText) {
  HeadlessFrames imgui;
  TextEditor editor;
  std::string text;
  for (int i = 0; i < 40; ++i) text += "line " + std::to_string(i) + "\n";
  editor.buffer().set_text(text);
  const ImVec2 top(60, 40);
  imgui.frame(editor, top, false);
  imgui.frame(editor, top, true);
  ASSERT_EQ(editor_scroll(), 0);
  for (float y = 60; y <= 400; y += 40) imgui.frame(editor, ImVec2(60, y), true);  // the editor is 200 pixels high
  imgui.frame(editor, ImVec2(60, 400), false);
  EXPECT_TRUE(editor.buffer().has_selection());
  EXPECT_GT(editor.buffer().cursor(), text.find("line 12"));  // beyond the lines first in view
  EXPECT_GT(editor_scroll(), 0);
}

// The centre of the open popup's `index`-th menu item (items and separators one line apart: the
// default style, as laid out by Dear ImGui).
ImVec2 menu_item(int index, int separators_before) {
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  const ImGuiWindow* popup = g.OpenPopupStack.back().Window;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float line = g.FontSize + style.ItemSpacing.y, separator = 1 + style.ItemSpacing.y;
  return ImVec2(popup->Pos.x + popup->Size.x / 2,
                popup->Pos.y + style.WindowPadding.y + static_cast<float>(index) * line +
                    static_cast<float>(separators_before) * separator + g.FontSize / 2);
}

TEST(TextEditorWidget, ARightClicksMenuSelectsCutsPastesAndUndoes) {
  HeadlessFrames imgui;
  TextEditor editor;
  editor.buffer().set_text("abc");
  const ImVec2 inside(60, 60);
  const auto choose = [&](int index, int separators_before) {
    imgui.frame(editor, inside, false, true);  // right click: the menu opens at the pointer
    imgui.frame(editor, inside, false);
    ASSERT_EQ(ImGui::GetCurrentContext()->OpenPopupStack.Size, 1);
    const ImVec2 item = menu_item(index, separators_before);
    imgui.frame(editor, item, false);
    imgui.frame(editor, item, true);
    imgui.frame(editor, item, false);  // released on the item: chosen, the menu closes
    EXPECT_EQ(ImGui::GetCurrentContext()->OpenPopupStack.Size, 0);
  };
  choose(5, 2);  // Select all
  EXPECT_TRUE(editor.buffer().has_selection());
  EXPECT_TRUE(editor.focused());
  choose(2, 1);  // Cut
  EXPECT_EQ(editor.text(), "");
  choose(4, 1);  // Paste
  choose(4, 1);
  EXPECT_EQ(editor.text(), "abcabc");
  choose(0, 0);  // Undo
  EXPECT_EQ(editor.text(), "abc");
  choose(1, 0);  // Redo
  EXPECT_EQ(editor.text(), "abcabc");
}

}  // namespace
}  // namespace attnscope::ui
