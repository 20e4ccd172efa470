#pragma once
// Two corpus runs compared (docs/compare.md): the statistics of the focused head as distributions
// over texts, A's and B's bars side by side (Fig. 6, 7, 8, 11, 13), and the summed maps per text
// of A and B with their difference (Fig. 2, 3, 10). Runs of different sizes compare as shares and
// means per text; maps need the same layers, heads and window.
#include <string>

#include "corpus/corpus_accumulator.h"
#include "figures/figure.h"
#include "figures/figure_options.h"

namespace attnscope {

struct ComparedCorpora {
  const CorpusAccumulator& a;
  const CorpusAccumulator& b;
  std::string name_a = "A", name_b = "B";
};

// "2", "3", "6", "7", "8", "10", "11", "13"; throws attnscope::Error for other names, a focus
// outside either run, or maps of runs of different shapes.
Figure compare_corpus_figure(const std::string& name, const ComparedCorpora& runs, const FigureOptions& options);

}  // namespace attnscope
