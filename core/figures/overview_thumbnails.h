#pragma once
// The overview's thumbnails of one text: every head's map and every layer's sum, pooled to a few
// cells a side and coloured, as panels or as one atlas texture.
#include <cstdint>
#include <string>
#include <vector>

#include "base/progress.h"
#include "figures/figure.h"
#include "figures/figure_options.h"
#include "figures/overview_pooler.h"
#include "figures/text_matrices.h"
#include "figures/thumbnail_atlas.h"

namespace attnscope {

// For each layer its heads, then its sum (layer-major, H + 1 per layer), each at most `max_cells`
// cells a side. A larger map is pooled, each cell keeping the value of largest magnitude in its
// block, so a single strong entry still shows; the colour scale is then taken from the pooled values.
// A long text's maps (not kept) are made again and pooled a block of query rows at a time, to the
// same thumbnails, unless its forward pooled them already.
// Its rollout is made layer after layer (analysis/attention_rollout.h: two n x n matrices held,
// refused in one line past kMostRolloutBytes), each R_l pooled as it is made. Minutes at 8,192
// tokens: the layers done are reported, and the work stops (attnscope::Cancelled) when asked.
struct LongTextThumbnails {
  int64_t block_rows = 0;                  // rows a block; 0: about 32 MB of a layer's maps
  const OverviewPooler* pooled = nullptr;  // the forward's, used where it holds what is asked
  ProgressReport progress = {};            // stage "overview", the share of the layers pooled
  KeepGoing keep_going = {};               // asked between blocks of rows
};
std::vector<HeatmapPanel> grid_thumbnails(const AnalyzedTextView& text, const FigureOptions& options, int max_cells,
                                          const LongTextThumbnails& long_text = {});
// The thumbnails coloured into one atlas, H + 1 tiles a row, at most kGridThumbnailCells a side: a
// thumbnail is shown 24 to 160 pixels wide, and every cell more is coloured and uploaded for every
// edit (a 512-token BERT-base text has 156 quarter-million-cell maps).
constexpr int kGridThumbnailCells = 64;
ThumbnailAtlas grid_atlas(const AnalyzedTextView& text, const FigureOptions& options,
                          const LongTextThumbnails& long_text = {});
// The overview as a forward pooling it has it so far (OverviewPooler::pools(options) must hold):
// the layers done coloured as grid_atlas colours them, the later ones' tiles left clear.
ThumbnailAtlas pooled_atlas(const OverviewPooler& pooled, const FigureOptions& options);
// The options the thumbnails depend on, as a key: not the focused layer or head, so that a click
// on a thumbnail does not colour them all again.
std::string grid_thumbnails_key(const FigureOptions& options);

}  // namespace attnscope
