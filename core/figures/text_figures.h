#pragma once
// The figures of one text (Fig. 4, 5, 9, 12, the per-text versions of 6, 7, 8, 11 and 13, the
// overview grid, one matrix in detail, and attention lines), built from its analysis snapshot.
#include <string>
#include <vector>

#include "analysis/text_analysis.h"
#include "figures/figure.h"
#include "figures/figure_options.h"
#include "figures/thumbnail_atlas.h"
#include "model/captures.h"
#include "tokenizer/encoding.h"

namespace attnscope {

// One analysed text, as the explorer and the command line hold it.
struct AnalyzedTextView {
  const Encoding& encoding;
  const TextCaptures& captures;  // on the host
  const TextAnalysis& analysis;  // on the host
};

// A head's matrix (head -1: the layer's sum), n x n row-major float on the host.
// `rollout_of_norm`: rollout through the norm-based layer maps (docs/lenses.md) instead of the mean attention.
std::vector<float> head_matrix(const AnalyzedTextView& text, int layer, int head, MatrixKind kind, bool rollout_of_norm = false);
std::vector<std::string> token_labels(const Encoding& encoding);

// Resolves layer -1 to the last layer and checks ranges; throws attnscope::Error.
FigureOptions resolved(const FigureOptions& options, const TextAnalysis& analysis);

// One matrix as a heatmap with token labels, colorbar and (S, cosine, the pairs' own matrix) the pairs outlined.
// The matrix whose high elements are the pairs (AnalysisSettings::pairs_from), as a shown matrix;
// a map of it outlines the pairs, as maps of S and cosine always do.
MatrixKind pairs_matrix(PairInput from);
HeatmapPanel matrix_panel(const AnalyzedTextView& text, int layer, int head, MatrixKind kind, const FigureOptions& o);

// The overview's thumbnails: for each layer its heads, then its sum (layer-major, H + 1 per
// layer), each at most `max_cells` cells a side. A larger map is pooled, each cell keeping the
// value of largest magnitude in its block, so a single strong entry still shows; the colour scale
// is then taken from the pooled values.
std::vector<HeatmapPanel> grid_thumbnails(const AnalyzedTextView& text, const FigureOptions& options, int max_cells);
// The overview's thumbnails coloured into one atlas, H + 1 tiles a row, at most
// kGridThumbnailCells a side: a thumbnail is shown 24 to 160 pixels wide, and every cell more is
// coloured and uploaded for every edit (a 512-token BERT-base text has 156 quarter-million-cell maps).
constexpr int kGridThumbnailCells = 64;
ThumbnailAtlas grid_atlas(const AnalyzedTextView& text, const FigureOptions& options);
// The options the thumbnails depend on, as a key: not the focused layer or head, so that a click
// on a thumbnail does not colour them all again.
std::string grid_thumbnails_key(const FigureOptions& options);

Figure head_figure(const AnalyzedTextView& text, const FigureOptions& options);
Figure grid_figure(const AnalyzedTextView& text, const FigureOptions& options);
Figure figure4(const AnalyzedTextView& text, const FigureOptions& options);
Figure figure5(const AnalyzedTextView& text, const FigureOptions& options);
Figure figure9(const AnalyzedTextView& text, const FigureOptions& options);
Figure stats_figure(const AnalyzedTextView& text, const FigureOptions& options);  // 6, 7, 8, 11 for a text
Figure figure12(const AnalyzedTextView& text, const FigureOptions& options);
Figure figure13(const AnalyzedTextView& text, const FigureOptions& options);
Figure lines_figure(const AnalyzedTextView& text, const FigureOptions& options);

// By name: "4", "5", "6", "7", "8", "9", "11", "12", "13" (6, 7, 8 and 11 give the statistics
// figure), "head", "grid", "lines", "stats"; throws attnscope::Error for others.
Figure text_figure(const std::string& name, const AnalyzedTextView& text, const FigureOptions& options);

}  // namespace attnscope
