// What a partial frame draws: every command clipped to the text side, widened to whole pixels,
// and the clear's scissor in GL's rows (from the bottom).
#include <gtest/gtest.h>
#include <imgui.h>

#include "gl/partial_frames.h"

namespace attnscope::ui {
namespace {

struct Frame {
  ImDrawList list{nullptr};
  ImDrawList* lists[1] = {&list};
  ImDrawData data;
  explicit Frame(ImVec2 scale) {
    data.Valid = true;
    data.CmdLists = lists;
    data.CmdListsCount = 1;
    data.DisplayPos = ImVec2(0, 0);
    data.DisplaySize = ImVec2(640, 400);
    data.FramebufferScale = scale;
  }
  void add(ImVec4 clip) {
    ImDrawCmd c;
    c.ClipRect = clip;
    c.ElemCount = 3;
    list.CmdBuffer.push_back(c);
  }
  ImVec4 clip(int k) const { return list.CmdBuffer[k].ClipRect; }
};

void expect_rect(ImVec4 got, ImVec4 want) {
  EXPECT_FLOAT_EQ(got.x, want.x);
  EXPECT_FLOAT_EQ(got.y, want.y);
  EXPECT_FLOAT_EQ(got.z, want.z);
  EXPECT_FLOAT_EQ(got.w, want.w);
}

TEST(PartialFrames, CommandsAreClippedToTheSideAndNothingOutsideIsLeft) {
  Frame f(ImVec2(1, 1));
  f.add(ImVec4(0, 0, 640, 400));    // the main window: cut to the side
  f.add(ImVec4(10, 20, 100, 50));   // inside the side: unchanged
  f.add(ImVec4(300, 0, 640, 400));  // the views: nothing left to draw
  const PixelRect r = clip_draw_data(f.data, ImVec4(8, 8, 192.4f, 392), 400);
  expect_rect(f.clip(0), ImVec4(8, 8, 193, 392));  // widened to whole pixels
  expect_rect(f.clip(1), ImVec4(10, 20, 100, 50));
  EXPECT_LE(f.clip(2).z, f.clip(2).x);  // empty: the backend skips it
  EXPECT_EQ(r.x, 8);
  EXPECT_EQ(r.width, 185);
  EXPECT_EQ(r.y, 8);  // 400 - 392, from the bottom
  EXPECT_EQ(r.height, 384);
}

TEST(PartialFrames, AHighDensityFramebufferIsClippedInItsOwnPixels) {
  Frame f(ImVec2(2, 2));
  f.add(ImVec4(0, 0, 640, 400));
  const PixelRect r = clip_draw_data(f.data, ImVec4(8.3f, 8, 192.2f, 392), 800);
  // 16.6 .. 384.4 framebuffer pixels widen to 16 .. 385, which are 8 .. 192.5 in display units.
  expect_rect(f.clip(0), ImVec4(8, 8, 192.5f, 392));
  EXPECT_EQ(r.x, 16);
  EXPECT_EQ(r.width, 369);
  EXPECT_EQ(r.y, 800 - 784);
  EXPECT_EQ(r.height, 768);
}

}  // namespace
}  // namespace attnscope::ui
