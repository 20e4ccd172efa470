#pragma once
// The means and shares a corpus run's sums stand for, computed in one place for the CSV tables
// and the findings report, so that both give the same number for the same run.
#include <ATen/core/Tensor.h>

#include <optional>

#include "corpus/corpus_accumulator.h"

namespace attnscope {

// Mean over texts of a per-text statistic of head (l, h): its sum over the texts where it was
// defined; none when it never was.
std::optional<double> head_stat_mean(const CorpusAccumulator& a, int stat, int64_t l, int64_t h);
// Mean same-sentence chance level over the texts that have one.
std::optional<double> chance_mean(const CorpusAccumulator& a);
// Mean pair distance of the pairs pooled over texts: of one head, and of a layer's heads together.
std::optional<double> head_pooled_mean_distance(const CorpusAccumulator& a, int64_t l, int64_t h);
std::optional<double> layer_pooled_mean_distance(const CorpusAccumulator& a, int64_t l);
// Mean number of distinct anchor tokens among layer l's heads, over texts; none without texts.
std::optional<double> mean_distinct_anchors(const CorpusAccumulator& a, int64_t l);

// From summed attention maps [L, H, N, N] (attention_sum() or one of its variants):
// [L, H] the share of each head's summed attention on the diagonal band |j - i| <= 1;
at::Tensor band_shares(const at::Tensor& sums);
// [L, H] the share of rows (with any attention) whose largest entry lies on that band;
at::Tensor rows_peaking_on_band(const at::Tensor& sums);
// [L, N] each position's share of the layer's summed attention (its heads' column sums).
at::Tensor layer_column_shares(const at::Tensor& sums);

// Share of layer l's separators in a token class, and of all window tokens in it; none when the
// run kept no classes or the layer had no separators.
std::optional<double> separator_class_share(const CorpusAccumulator& a, int64_t l, TokenClass c);
std::optional<double> token_class_share(const CorpusAccumulator& a, TokenClass c);

}  // namespace attnscope
