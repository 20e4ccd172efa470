#pragma once
// The figures of a corpus run (Fig. 2, 3, 6, 7, 8, 10, 11, 13), from its saved or live result.
#include <string>
#include <vector>

#include "corpus/corpus_accumulator.h"
#include "figures/figure.h"
#include "figures/figure_options.h"

namespace attnscope {

// Building blocks, shared with the comparison of two corpus runs:
std::vector<std::string> position_labels(int64_t count);                                      // "0", "1", ...
std::vector<std::string> bin_labels(int bins, double width);                                  // each bin's lower edge
HeatmapPanel tensor_heatmap(std::string title, const at::Tensor& m, const FigureOptions& o);  // [rows, cols]
// An N x N map over window positions, with its colour bar label.
HeatmapPanel corpus_position_map(std::string title, const at::Tensor& m, const FigureOptions& o, std::string bar);

// "2", "3", "6", "7", "8", "10", "11", "13"; throws attnscope::Error for others or bad ranges.
Figure corpus_figure(const std::string& name, const CorpusAccumulator& corpus, const FigureOptions& options);

}  // namespace attnscope
