#pragma once
// The overview's thumbnails of one text: every head's map and every layer's sum, pooled to a few
// cells a side and coloured, as panels or as one atlas texture.
#include <cstdint>
#include <string>
#include <vector>

#include "figures/figure.h"
#include "figures/figure_options.h"
#include "figures/text_matrices.h"
#include "figures/thumbnail_atlas.h"

namespace attnscope {

// For each layer its heads, then its sum (layer-major, H + 1 per layer), each at most `max_cells`
// cells a side. A larger map is pooled, each cell keeping the value of largest magnitude in its
// block, so a single strong entry still shows; the colour scale is then taken from the pooled values.
// A long text's maps (not kept) are made and pooled a block of `block_rows` query rows at a time
// (0: about 32 MB of a layer's maps a block), to the same thumbnails.
std::vector<HeatmapPanel> grid_thumbnails(const AnalyzedTextView& text, const FigureOptions& options, int max_cells,
                                          int64_t block_rows = 0);
// The thumbnails coloured into one atlas, H + 1 tiles a row, at most kGridThumbnailCells a side: a
// thumbnail is shown 24 to 160 pixels wide, and every cell more is coloured and uploaded for every
// edit (a 512-token BERT-base text has 156 quarter-million-cell maps).
constexpr int kGridThumbnailCells = 64;
ThumbnailAtlas grid_atlas(const AnalyzedTextView& text, const FigureOptions& options);
// The options the thumbnails depend on, as a key: not the focused layer or head, so that a click
// on a thumbnail does not colour them all again.
std::string grid_thumbnails_key(const FigureOptions& options);

}  // namespace attnscope
