#pragma once
// What the measures of two runs with the same tokens are made of, per pair of maps (the same head's
// attention maps, or its S, in runs A and B): <a, b>, ||a||^2, ||b||^2, max |b - a| and
// ||b - a||^2, summed in float64. On the CPU one pass reads each map once (the maps of a BERT-base
// run of 512 tokens are 150 MB a side, and a chain of tensor operations would read them ten
// times); elsewhere tensor operations on the device compute the same.
#include <ATen/core/Tensor.h>

#include <vector>

namespace attnscope {

struct MapPairSums {
  std::vector<double> dot, norm_a, norm_b, max_difference, difference_norm;  // one entry per map; norms squared

  // The sums of `count` maps, all zero, to be made of parts (a long text's maps, a block of rows at a time).
  static MapPairSums zeros(size_t count);
  // Adds the sums of parts of maps `first` .. `first + part.dot.size()` (the largest difference: the larger).
  void add(size_t first, const MapPairSums& part);
};

// a, b: [K, ...] with the same shape (any floating type, one device): K pairs of maps.
MapPairSums map_pair_sums(const at::Tensor& a, const at::Tensor& b);

}  // namespace attnscope
