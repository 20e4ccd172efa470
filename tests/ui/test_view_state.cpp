// Moving through layers and heads, view names, the debounce of reruns: no window needed.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/error.h"
#include "view_state.h"

namespace attnscope::ui {
namespace {

TEST(ViewState, HeadsWrapIntoTheNextAndPreviousLayer) {
  ViewState s;
  s.layer = 0;
  s.head = 11;
  s = stepped(s, Step::NextHead, 6, 12);
  EXPECT_EQ(s.layer, 1);
  EXPECT_EQ(s.head, 0);
  s = stepped(s, Step::PreviousHead, 6, 12);
  EXPECT_EQ(s.layer, 0);
  EXPECT_EQ(s.head, 11);
  s.head = 0;
  s = stepped(s, Step::PreviousHead, 6, 12);  // the very first head stays
  EXPECT_EQ(s.layer, 0);
  EXPECT_EQ(s.head, 0);
  s.layer = 5;
  s.head = 11;
  s = stepped(s, Step::NextHead, 6, 12);  // the very last head stays
  EXPECT_EQ(s.layer, 5);
  EXPECT_EQ(s.head, 11);
}

TEST(ViewState, LayersStopAtTheEnds) {
  ViewState s;
  s = stepped(s, Step::PreviousLayer, 6, 12);
  EXPECT_EQ(s.layer, 0);
  for (int k = 0; k < 10; ++k) s = stepped(s, Step::NextLayer, 6, 12);
  EXPECT_EQ(s.layer, 5);
}

TEST(ViewState, ClampedToASmallerModel) {
  ViewState s;
  s.layer = 11;
  s.head = 11;
  s.layers_shown = {0, 3, 9};
  s = clamped(s, 6, 4);
  EXPECT_EQ(s.layer, 5);
  EXPECT_EQ(s.head, 3);
  EXPECT_EQ(s.layers_shown, (std::vector<int>{0, 3}));
}

TEST(ViewState, MatrixCycleAndFigureOptions) {
  EXPECT_EQ(next_matrix(MatrixKind::Attention), MatrixKind::Similarity);
  EXPECT_EQ(next_matrix(MatrixKind::Similarity), MatrixKind::Cosine);
  EXPECT_EQ(next_matrix(MatrixKind::Cosine), MatrixKind::Norm);
  EXPECT_EQ(next_matrix(MatrixKind::Norm), MatrixKind::Rollout);
  EXPECT_EQ(next_matrix(MatrixKind::Rollout), MatrixKind::Attention);
  for (int k = 0; k < kMatrixKinds; ++k) EXPECT_GT(std::string(matrix_help(static_cast<MatrixKind>(k))).size(), 20u);
  ViewState s;
  s.layer = 2;
  s.head = 7;
  s.layer_sum = true;
  FigureOptions o = figure_options(s);
  EXPECT_EQ(o.layer, 2);
  EXPECT_EQ(o.head, -1);
  EXPECT_EQ(o.colormap, ColormapId::Viridis);
  s.query_key = true;
  s.query = 5;
  EXPECT_TRUE(figure_options(s).query_key);
  EXPECT_EQ(figure_options(s).query, 5);
  s.presentation = true;
  EXPECT_EQ(figure_options(s).colormap, ColormapId::HighContrast);
}

TEST(ViewState, ViewNamesRoundTripAndHaveHelp) {
  for (int v = 0; v < kViewCount; ++v) {
    const View view = static_cast<View>(v);
    EXPECT_EQ(view_by_name(view_name(view)), view);
    EXPECT_GT(std::string(view_help(view)).size(), 40u);
    EXPECT_GT(std::string(view_summary(view)).size(), 20u);
  }
  EXPECT_THROW(view_by_name("heads"), Error);
}

TEST(ViewState, TheLinesViewDrawsTheFocusedHeadWithTheTickedOnes) {
  ViewState s;
  s.layer = 2;
  s.head = 5;
  EXPECT_TRUE(figure_options(s).heads.empty());  // one head: the focused one
  s.heads_shown = {7, 1};
  EXPECT_EQ(figure_options(s).heads, (std::vector<int>{1, 5, 7}));
  s.layer_sum = true;
  EXPECT_TRUE(figure_options(s).heads.empty());  // the layer's mean stands alone
  s = clamped(s, 12, 6);
  EXPECT_EQ(s.heads_shown, (std::vector<int>{1}));
}

}  // namespace
}  // namespace attnscope::ui

#include "fonts.h"

namespace attnscope::ui {
namespace {

TEST(Fonts, FontconfigFindsDejaVuAndNothingForAnUnknownFamily) {
  const std::string dejavu = find_font_file("DejaVu Sans");  // fonts-dejavu-core, installed by tools/setup.sh
  ASSERT_FALSE(dejavu.empty());
  EXPECT_TRUE(std::filesystem::exists(dejavu));
  EXPECT_NE(dejavu.find("DejaVuSans"), std::string::npos) << dejavu;
  EXPECT_EQ(find_font_file("No Such Family Anywhere"), "");
}

}  // namespace
}  // namespace attnscope::ui
