#pragma once
// Sums over contiguous runs of a tensor's entries along one dimension (the pieces of each word,
// analysis/word_level.h), whatever the runs' lengths, with no dense membership matrix.
#include <ATen/core/Tensor.h>

namespace attnscope {

// [.., R, ..] float64: along `dim`, run k sums entries [bounds[k], bounds[k + 1]) (bounds: R + 1
// int64 offsets, ascending, on t's device). Differences of prefix sums in double precision: one
// pass whatever the runs' lengths, and a prefix of n float32 numbers keeps them to about n 2^-53
// of their size, far below float32's own 2^-24 for any length a model reads.
at::Tensor run_sums(const at::Tensor& t, int64_t dim, const at::Tensor& bounds);

}  // namespace attnscope
