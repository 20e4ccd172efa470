#pragma once
// Sentence separators from column attention (METHOD.md, Fig. 4-5): a_j = sum_i A_ij (a decoder's
// divided by the queries that may attend to j: model/captures.h, column_means), a_hat = a / max a, separators {j :
// a_hat_j >= tau_sep}; the segments they cut; the row/column mask; and the block-averaged similarity matrix.
#include <ATen/core/Tensor.h>

#include <vector>

namespace attnscope {

struct Segment {
  int first = 0, last = 0;  // inclusive token positions
};

struct Separators {
  std::vector<int> positions;       // ascending
  std::vector<float> column_share;  // a_hat, one per token
};

// attention_maps: [K, n, n] (K maps: heads, or layer sums) of an encoder; one result per map.
std::vector<Separators> find_separators(const at::Tensor& attention_maps, double tau_sep);
// The same from column attention already taken: columns [K, n], a_j as above. A layer's summed
// map has the sum of its heads' columns, so one pass over the maps serves every choice.
// `eligible` (empty: every position) leaves positions out of the maximum and of the separators;
// their share is still reported, against the eligible maximum.
std::vector<Separators> separators_from_columns(const at::Tensor& columns, double tau_sep,
                                                const std::vector<bool>& eligible = {});
// [0, p1], [p1 + 1, p2], ..., and a last run after the last separator if tokens remain.
std::vector<Segment> segments_from(const std::vector<int>& separators, int n);
// [n, n] bool: row i and column j marked when i or j is a separator.
at::Tensor separator_mask(const std::vector<int>& separators, int n);
// [n, n]: every cell holds the mean of S over its block (i != j); NaN where a block has no element.
at::Tensor block_average(const at::Tensor& similarity, const std::vector<Segment>& segments);

}  // namespace attnscope
