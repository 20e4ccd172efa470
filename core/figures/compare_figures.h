#pragma once
// The figures of a comparison of two text runs (docs/compare.md): one head's matrix in A and B
// side by side with their difference, the "what changed" grid of every head, and the statistics
// of one layer's heads with A's and B's bars together.
#include <string>

#include "compare/text_comparison.h"
#include "figures/text_figures.h"

namespace attnscope {

struct ComparedTextsView {
  AnalyzedTextView a, b;
  const TextComparison& comparison;
  std::string name_a = "A", name_b = "B";  // shown in titles and legends (e.g. the models' names)
};

// A's and B's matrix of the focused head (or layer sum), and B - A where the tokens are the same.
Figure compare_head_figure(const ComparedTextsView& runs, const FigureOptions& options);
// One cell per (layer, head): 1 - CKA of the head outputs, and where the tokens are the same
// 1 - the cosine of the attention maps.
Figure what_changed_figure(const ComparedTextsView& runs, const FigureOptions& options);
// Fig. 6, 7, 8, 11 of one layer (options.layer) with A's and B's bars side by side.
Figure compare_stats_figure(const ComparedTextsView& runs, const FigureOptions& options);

// A's figure and B's side by side, panel by panel (A left, B right), titles prefixed with the names.
Figure side_by_side(const Figure& a, const Figure& b, const std::string& name_a, const std::string& name_b);

// By name: "head", "changed", "stats" (also "6", "7", "8", "11"), and any text figure of A beside
// B's: "4", "5", "9", "12", "13", "lines"; throws attnscope::Error for others.
Figure compare_figure(const std::string& name, const ComparedTextsView& runs, const FigureOptions& options);

}  // namespace attnscope
