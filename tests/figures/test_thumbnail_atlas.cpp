// The overview's atlas of thumbnails, coloured on the CPU: layout and colours by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "base/error.h"
#include "figures/colormap.h"
#include "figures/thumbnail_atlas.h"

namespace attnscope {
namespace {

HeatmapPanel panel(std::vector<float> values, double lo, double hi) {
  HeatmapPanel p;
  p.rows = p.cols = 2;
  p.values = std::move(values);
  p.colormap = ColormapId::Viridis;
  p.color_scale.lo = lo;
  p.color_scale.hi = hi;
  return p;
}

std::array<int, 4> pixel(const ThumbnailAtlas& a, int x, int y) {
  const uint8_t* px = &a.rgba[(static_cast<size_t>(y) * a.width() + x) * 4];
  return {px[0], px[1], px[2], px[3]};
}

std::array<int, 4> table(int index) {
  const Rgb c = colormap(ColormapId::Viridis).table[static_cast<size_t>(index)];
  return {static_cast<int>(c.r * 255 + 0.5f), static_cast<int>(c.g * 255 + 0.5f), static_cast<int>(c.b * 255 + 0.5f),
          255};
}

TEST(ThumbnailAtlas, TilesGoLeftToRightThenDownEachCellOnePixelThroughItsOwnScale) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Three tiles, two to a row: the second row holds one tile and a clear one.
  const auto a =
      thumbnail_atlas({panel({0, 1, 0.5f, nan}, 0, 1), panel({2, 4, 3, 4}, 2, 4), panel({1, 1, 1, 1}, 0, 2)}, 2);
  ASSERT_EQ(a.columns, 2);
  ASSERT_EQ(a.rows, 2);
  ASSERT_EQ(a.width(), 4);
  ASSERT_EQ(a.height(), 4);
  ASSERT_EQ(a.rgba.size(), 4u * 4 * 4);
  EXPECT_EQ(pixel(a, 0, 0), table(0));
  EXPECT_EQ(pixel(a, 1, 0), table(255));
  EXPECT_EQ(pixel(a, 0, 1), table(128));                        // 0.5 * 255 rounds to 128
  EXPECT_EQ(pixel(a, 1, 1), (std::array<int, 4>{0, 0, 0, 0}));  // NaN: left clear
  EXPECT_EQ(pixel(a, 2, 0), table(0));                          // the second tile, on its own range 2 .. 4
  EXPECT_EQ(pixel(a, 3, 0), table(255));
  EXPECT_EQ(pixel(a, 2, 1), table(128));
  EXPECT_EQ(pixel(a, 0, 2), table(128));                        // the third tile, second row: 1 on 0 .. 2
  EXPECT_EQ(pixel(a, 3, 3), (std::array<int, 4>{0, 0, 0, 0}));  // no fourth tile
}

TEST(ThumbnailAtlas, LogAndSymmetricScalesColourThroughTheirPositions) {
  HeatmapPanel log = panel({1, 0.1f, 0.01f, 0}, 0, 1);
  log.color_scale.scale = ValueScale::Log;  // three decades: 1, 2/3, 1/3, 0 of the way
  HeatmapPanel signed_map = panel({-2, 2, 0, 1}, -2, 2);
  signed_map.color_scale.symmetric = true;  // 0, 1, 1/2, 3/4 of the way
  const auto a = thumbnail_atlas({log, signed_map}, 2);
  EXPECT_EQ(pixel(a, 0, 0), table(255));
  EXPECT_EQ(pixel(a, 1, 0), table(170));  // 2/3 * 255 = 170
  EXPECT_EQ(pixel(a, 0, 1), table(85));
  EXPECT_EQ(pixel(a, 1, 1), table(0));
  EXPECT_EQ(pixel(a, 2, 0), table(0));
  EXPECT_EQ(pixel(a, 3, 0), table(255));
  EXPECT_EQ(pixel(a, 2, 1), table(128));
  EXPECT_EQ(pixel(a, 3, 1), table(191));  // 0.75 * 255 = 191.25
}

TEST(ThumbnailAtlas, RefusesPanelsOfDifferentSizesOrColormaps) {
  HeatmapPanel small = panel({0, 1, 2, 3}, 0, 3);
  HeatmapPanel big = small;
  big.rows = big.cols = 1;
  big.values = {0};
  EXPECT_THROW(thumbnail_atlas({small, big}, 2), Error);
  HeatmapPanel magma = small;
  magma.colormap = ColormapId::Magma;
  EXPECT_THROW(thumbnail_atlas({small, magma}, 2), Error);
}

TEST(ThumbnailAtlas, NoPanelsOrNoColumnsGiveAnEmptyAtlas) {
  EXPECT_TRUE(thumbnail_atlas({}, 3).rgba.empty());
  EXPECT_TRUE(thumbnail_atlas({panel({0, 1, 2, 3}, 0, 3)}, 0).rgba.empty());
}

}  // namespace
}  // namespace attnscope
