#include "figures/thumbnail_atlas.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "base/error.h"

namespace attnscope {

namespace {

using Rgba = std::array<uint8_t, 4>;

void paint(uint8_t* pixel, const std::array<Rgba, 256>& table, double t) {
  std::memcpy(pixel, table[static_cast<size_t>(std::clamp(t, 0.0, 1.0) * 255.0 + 0.5)].data(), 4);
}

void colour_tile(const HeatmapPanel& p, const std::array<Rgba, 256>& table, uint8_t* origin, int width) {
  const std::optional<ColorScale::Affine> line = p.color_scale.affine();
  for (int i = 0; i < p.rows; ++i) {
    const float* row = &p.values[static_cast<size_t>(i) * p.cols];
    uint8_t* out = origin + static_cast<size_t>(i) * width * 4;
    for (int j = 0; j < p.cols; ++j) {
      if (std::isnan(row[j])) continue;  // an empty cell stays clear
      paint(out + static_cast<size_t>(j) * 4, table,
            line ? row[j] * line->factor + line->offset : p.color_scale.position(row[j]));
    }
  }
}

}  // namespace

ThumbnailAtlas thumbnail_atlas(const std::vector<HeatmapPanel>& panels, int columns) {
  ThumbnailAtlas atlas;
  if (panels.empty() || columns <= 0) return atlas;
  const HeatmapPanel& first = panels.front();
  for (const HeatmapPanel& p : panels)
    if (p.rows != first.rows || p.cols != first.cols || p.colormap != first.colormap)
      throw Error("an atlas holds heatmaps of one size and colormap");
  atlas.columns = columns;
  atlas.rows = (static_cast<int>(panels.size()) + columns - 1) / columns;
  atlas.tile_w = first.cols;
  atlas.tile_h = first.rows;
  const int width = atlas.width();
  atlas.rgba.assign(static_cast<size_t>(width) * atlas.height() * 4, 0);
  const auto table = colormap(first.colormap).rgba8();  // a cell costs its position on the scale and a copy
  at::parallel_for(0, static_cast<int64_t>(panels.size()), 1, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      const size_t x0 = static_cast<size_t>(k % columns) * atlas.tile_w,
                   y0 = static_cast<size_t>(k / columns) * atlas.tile_h;
      colour_tile(panels[static_cast<size_t>(k)], table, &atlas.rgba[(y0 * width + x0) * 4], width);
    }
  });
  return atlas;
}

}  // namespace attnscope
