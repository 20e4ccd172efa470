// A heatmap pooled for a panel smaller than its cells (figures/pooled_panel.h), by hand.
#include "figures/pooled_panel.h"

#include <gtest/gtest.h>

namespace attnscope {
namespace {

TEST(PooledPanel, PoolsOnlyWhereCellsOutnumberPixels) {
  EXPECT_EQ(display_pooling(512, 600), 1);
  EXPECT_EQ(display_pooling(600, 600), 1);
  EXPECT_EQ(display_pooling(2048, 600), 4);  // 3.4 cells a pixel: blocks of 4
  EXPECT_EQ(display_pooling(1024, 600), 2);
  EXPECT_EQ(display_pooling(1024, 0), 1);  // not laid out yet
}

TEST(PooledPanel, EachBlockKeepsItsValueOfLargestMagnitude) {
  // 5 x 5, pooled 2 x 2: 3 x 3 cells, the last row and column of blocks cut short.
  HeatmapPanel p;
  p.rows = p.cols = 5;
  p.values.assign(25, 0.1f);
  p.values[0 * 5 + 1] = 0.9f;   // block (0, 0)
  p.values[3 * 5 + 2] = -2.0f;  // block (1, 1): negative, the largest magnitude
  p.values[2 * 5 + 3] = 1.5f;   // block (1, 1) too
  p.values[4 * 5 + 4] = 0.7f;   // block (2, 2), alone in it
  p.colormap = ColormapId::Magma;
  p.color_scale = {-2, 2, ValueScale::Linear, true};
  p.outlined = {{0, 1}};
  const HeatmapPanel q = pooled_panel(p, 2);
  EXPECT_EQ(q.rows, 3);
  EXPECT_EQ(q.cols, 3);
  EXPECT_EQ(q.values, (std::vector<float>{0.9f, 0.1f, 0.1f, 0.1f, -2.0f, 0.1f, 0.1f, 0.1f, 0.7f}));
  EXPECT_EQ(q.colormap, ColormapId::Magma);
  EXPECT_EQ(q.color_scale.lo, -2);
  EXPECT_TRUE(q.color_scale.symmetric);
  EXPECT_TRUE(q.outlined.empty());
  // A single column of 1 in a map of zeros survives any pooling (a separator's column).
  HeatmapPanel column;
  column.rows = column.cols = 2048;
  column.values.assign(2048 * 2048, 0.0f);
  for (int i = 0; i < 2048; ++i) column.values[static_cast<size_t>(i) * 2048 + 2018] = 1.0f;
  const HeatmapPanel pooled = pooled_panel(column, display_pooling(2048, 600));
  ASSERT_EQ(pooled.cols, 512);
  for (int r = 0; r < pooled.rows; ++r) ASSERT_EQ(pooled.value(r, 2018 / 4), 1.0f) << r;
  EXPECT_EQ(pooled_panel(p, 1).values, p.values);
}

}  // namespace
}  // namespace attnscope
