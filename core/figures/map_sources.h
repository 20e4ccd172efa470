#pragma once
// The maps of an analysed text as sources for a pyramid of tiles (figures/map_pyramid.h), each
// made a block of rows at a time from what a long text keeps: a head's or a layer's map of any
// kind, Fig. 5's separator mask and its block averages of S.
#include <vector>

#include "analysis/separators.h"
#include "figures/figure_options.h"
#include "figures/map_pyramid.h"
#include "figures/text_matrices.h"

namespace attnscope {

// Which of a text's maps.
struct MapOfHead {
  int layer = 0, head = 0;  // head -1: the layer's own map
  MatrixKind kind = MatrixKind::Attention;
  bool zero_diagonal = false;    // shown with its diagonal set to 0 (FigureOptions::zero_diagonal)
  bool outline_pairs = false;    // the head's pairs outlined
  bool rollout_of_norm = false;  // a rollout's lens (FigureOptions::rollout_of_norm)
};

// The rows of map_rows. The source keeps a copy of `text` (what it refers to must outlive the
// source). Throws attnscope::Error for what needs every map whole: a long text's rollout other than
// the one it keeps (AnalyzedTextView::rollout).
MapSource head_map_source(const AnalyzedTextView& text, const MapOfHead& map, ValueScale scale, bool symmetric);
// 1 where row i or column j is a separator, else 0 (separator_mask).
MapSource separator_mask_source(const std::vector<int>& separators, int64_t n);
// Each cell the mean of a head's S over its block of segments, the diagonal left out, NaN for a
// block without elements (block_average, to float rounding), a block of rows made from the rows of
// S of the segments it crosses.
MapSource block_average_source(const AnalyzedTextView& text, int layer, int head, const std::vector<Segment>& segments,
                               ValueScale scale);

}  // namespace attnscope
