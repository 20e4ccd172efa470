#pragma once
// Many heatmaps of one size and colormap side by side in one RGBA image, one pixel per cell: the
// overview's thumbnails, coloured off the drawing thread (by the analysis worker, with its
// threads) so that the frame showing a new analysis only uploads them.
#include <cstdint>
#include <vector>

#include "figures/figure.h"

namespace attnscope {

struct ThumbnailAtlas {
  int columns = 0, rows = 0;   // tiles
  int tile_w = 0, tile_h = 0;  // each tile's pixels (its cells)
  std::vector<uint8_t> rgba;   // (columns * tile_w) x (rows * tile_h), row 0 at the top; an empty cell is clear
  int width() const { return columns * tile_w; }
  int height() const { return rows * tile_h; }
};

// `panels` (equal rows, cols and colormap; outlines ignored) laid out `columns` to a row, each
// cell coloured through its panel's colour scale; throws attnscope::Error on unequal panels.
ThumbnailAtlas thumbnail_atlas(const std::vector<HeatmapPanel>& panels, int columns);

}  // namespace attnscope
