#pragma once
// The numbers of one corpus run that the paper's findings are decided by, taken once from its
// sums (corpus/corpus_summary.h, the same functions the CSV tables use).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "corpus/corpus_accumulator.h"

namespace attnscope {

using MaybeValue = std::optional<double>;
using LayerHeadValues = std::vector<std::vector<MaybeValue>>;  // [layer][head]

struct RunMeasures {
  std::string name;  // the model, as the report names it
  int64_t layers = 0, heads = 0, window = 0, texts = 0;
  // Per layer: the first position's and the diagonal band's (|j - i| <= 1) share of the layer's
  // summed attention; its separators' shares by class; pooled mean pair distance; mean same-sentence
  // share over its heads; mean distinct anchors.
  std::vector<double> first_column_share, band_share;
  std::vector<MaybeValue> separators_first, separators_special, separators_punctuation, separators_word;
  std::vector<MaybeValue> mean_distance, same_sentence_share, distinct_anchors;
  // Where the first position ranks among the first layer's columns (1: the most attended).
  int first_column_rank_in_first_layer = 0;
  MaybeValue punctuation_base;  // share of all window tokens that are punctuation
  MaybeValue chance;            // mean same-sentence chance level
  // Per head: the share of rows of its summed map (separator columns zeroed) that peak on the
  // band; mean repeat share; mean anchor share; pooled mean pair distance.
  LayerHeadValues rows_on_band, repeat_share, anchor_share, head_distance;
};

RunMeasures measure_run(const CorpusAccumulator& corpus, std::string name);

// The mean of the defined values of one layer, or of all heads.
MaybeValue mean_of(const std::vector<MaybeValue>& values);
MaybeValue median_of(std::vector<MaybeValue> values);
std::vector<MaybeValue> all_heads(const LayerHeadValues& values);

}  // namespace attnscope
