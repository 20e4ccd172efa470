#pragma once
// A heatmap shown smaller than its cells: pooled to about a cell a pixel before it is coloured,
// each block keeping its value of largest magnitude (MagnitudePooler, as the overview's thumbnails
// and the long text's tiles do). Scaled by the texture's sampling instead, a 2,048-token map in a
// 600-pixel panel showed one column in three or four and lost the rest: a separator's column, a
// single strong pair.
#include <cstdint>

#include "figures/figure.h"

namespace attnscope {

// Cells a side pooled into one for `cells` shown across `pixels`: 1 while each gets a pixel.
int64_t display_pooling(int64_t cells, double pixels);

// `panel`'s values pooled k x k (ceil(rows / k) x ceil(cols / k) cells), its colours and scale
// kept; no outlines (a pooled cell is not one pair). k 1: the panel itself.
HeatmapPanel pooled_panel(const HeatmapPanel& panel, int64_t k);

}  // namespace attnscope
