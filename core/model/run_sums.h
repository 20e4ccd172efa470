#pragma once
// Sums over contiguous runs of a tensor's entries along one dimension (the pieces of each word,
// analysis/word_level.h), with no dense membership matrix.
#include <ATen/core/Tensor.h>

namespace attnscope {

// [.., R, ..] in t's type and device (a view, not contiguous unless dim is 0): along `dim`, run k
// sums entries [bounds[k], bounds[k + 1]) (bounds: R + 1 ascending int64 offsets on the host, each
// run at least one entry) in order, one entry of each run after another. A text's words are mostly
// of one piece or a few: this touches each entry once, in as many steps as the longest run has entries.
at::Tensor run_sums(const at::Tensor& t, int64_t dim, const at::Tensor& bounds);

// [R] int64 on the host: each run's number of entries, bounds[k + 1] - bounds[k] (a word's pieces).
at::Tensor run_lengths(const at::Tensor& bounds);

}  // namespace attnscope
