#include "figures/pooled_panel.h"

#include <algorithm>
#include <cmath>

#include "figures/magnitude_pooler.h"

namespace attnscope {

int64_t display_pooling(int64_t cells, double pixels) {
  if (!(pixels >= 1) || cells <= pixels) return 1;
  return static_cast<int64_t>(std::ceil(static_cast<double>(cells) / pixels));
}

HeatmapPanel pooled_panel(const HeatmapPanel& panel, int64_t k) {
  if (k <= 1 || panel.rows <= 0 || panel.cols <= 0) return panel;
  HeatmapPanel out;
  out.title = panel.title;
  out.colormap = panel.colormap;
  out.color_scale = panel.color_scale;
  out.colorbar_label = panel.colorbar_label;
  out.rows = static_cast<int>((panel.rows + k - 1) / k);
  out.cols = static_cast<int>((panel.cols + k - 1) / k);
  out.values.resize(static_cast<size_t>(out.rows) * static_cast<size_t>(out.cols));
  MagnitudePooler(panel.cols, k, out.values.data(), panel.rows).add_rows(panel.values.data(), panel.rows);
  return out;
}

}  // namespace attnscope
