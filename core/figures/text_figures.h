#pragma once
// The figures of one text (Fig. 4, 5, 9, 12, the per-text versions of 6, 7, 8, 11 and 13, the
// overview grid, one matrix in detail, and attention lines), built from its analysis snapshot. The
// matrices they draw are made in text_matrices.h, the overview's thumbnails in overview_thumbnails.h.
#include <string>
#include <vector>

#include "analysis/text_analysis.h"
#include "figures/figure.h"
#include "figures/map_pyramid.h"
#include "figures/map_sources.h"
#include "figures/figure_options.h"
#include "figures/overview_thumbnails.h"
#include "figures/text_matrices.h"

namespace attnscope {

// One matrix as a heatmap with token labels, colorbar and (S, cosine, the pairs' own matrix) the pairs outlined.
HeatmapPanel matrix_panel(const AnalyzedTextView& text, int layer, int head, MatrixKind kind, const FigureOptions& o);

Figure head_figure(const AnalyzedTextView& text, const FigureOptions& options);

// A long text's figures that show maps, with those maps' values left out and their sources
// given instead, to be drawn from pyramids of tiles (figures/map_pyramid.h): nothing n x n is made.
struct TiledPanel {
  size_t panel = 0;  // a heatmap of the figure, its values empty
  MapSource source;
};
struct TiledFigure {
  Figure figure;
  std::vector<TiledPanel> tiled;
};
TiledFigure tiled_head_figure(const AnalyzedTextView& text, const FigureOptions& options);  // head_figure's
TiledFigure tiled_figure5(const AnalyzedTextView& text, const FigureOptions& options);      // figure5's
TiledFigure tiled_figure12(const AnalyzedTextView& text, const FigureOptions& options);     // figure12's
// The layers whose rollout these figures of a long text draw (empty: none), each to be made
// beforehand (long_text_rollouts, in the text's view): the head figure's layer, or the Layers
// figure's chosen ones, where they show rollout.
std::vector<int> head_figure_rollout_layers(const TextAnalysis& analysis, const FigureOptions& options);
std::vector<int> figure12_rollout_layers(const TextAnalysis& analysis, const FigureOptions& options);

// Every head's map and every layer's sum. A long text's (maps not kept) are its overview's
// thumbnails (figures/overview_thumbnails.h) at most this many cells a side: 1 MB a panel, 290 MB for
// a BERT-base size, each cell its block's value of largest magnitude, the diagonal zeroed on
// attention alone, as the overview does; `long_text` reports their layers and stops them (its
// `pooled` is not read: the forward pools at the overview's size).
inline constexpr int kLongGridCells = 512;
Figure grid_figure(const AnalyzedTextView& text, const FigureOptions& options,
                   const LongTextThumbnails& long_text = {});
Figure figure4(const AnalyzedTextView& text, const FigureOptions& options);
Figure figure5(const AnalyzedTextView& text, const FigureOptions& options);
// Fig. 9; its table, where options.pair_table asks for the strongest, from `strongest` where the
// caller has found them already (strongest first: the explorer's Pairs view), else found here.
Figure figure9(const AnalyzedTextView& text, const FigureOptions& options,
               const std::vector<TokenPair>* strongest = nullptr);
// Fig. 9 without its table (the explorer's Pairs view draws a table of its own): nor are the
// pairs listed, which for a long text's lens pairs would make the head's map again for their values.
// Its colours need the head's mask (TextAnalysis::pair_mask): the view builds it once at hand.
Figure figure9_text(const AnalyzedTextView& text, const FigureOptions& options);
Figure stats_figure(const AnalyzedTextView& text, const FigureOptions& options);  // 6, 7, 8, 11 for a text
Figure figure12(const AnalyzedTextView& text, const FigureOptions& options);
Figure figure13(const AnalyzedTextView& text, const FigureOptions& options);
Figure lines_figure(const AnalyzedTextView& text, const FigureOptions& options);
// The attention lines of one head (head -1: the mean of its layer's heads) of at least `min_weight`,
// made a block of rows at a time (a long text's maps are never whole).
std::vector<AttentionLine> attention_lines(const AnalyzedTextView& text, int layer, int head, float min_weight);

// By name: "4", "5", "6", "7", "8", "9", "11", "12", "13" (6, 7, 8 and 11 give the statistics
// figure), "head", "grid", "lines", "stats"; throws attnscope::Error for others.
Figure text_figure(const std::string& name, const AnalyzedTextView& text, const FigureOptions& options);

}  // namespace attnscope
