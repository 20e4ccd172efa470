#pragma once
// The figures of a corpus run (Fig. 2, 3, 6, 7, 8, 10, 11, 13), from its saved or live result.
#include <string>

#include "corpus/corpus_accumulator.h"
#include "figures/figure.h"
#include "figures/figure_options.h"

namespace attnscope {

// "2", "3", "6", "7", "8", "10", "11", "13"; throws attnscope::Error for others or bad ranges.
Figure corpus_figure(const std::string& name, const CorpusAccumulator& corpus, const FigureOptions& options);

}  // namespace attnscope
