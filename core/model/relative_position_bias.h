#pragma once
// Relative position buckets (MPNet, after T5): the offset j - i of a key from its query put in one
// of `buckets` buckets, half for keys before the query and half for keys after; within each half,
// offsets below a quarter of the buckets have a bucket each and longer ones share buckets spaced
// logarithmically up to `max_distance` (farther ones all in the last). A layer's scores get the
// bias its table holds for each bucket and head.
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace attnscope {

// [n, n] int64 on the host: the bucket of key j for query i, as transformers' MPNet computes it.
at::Tensor relative_position_buckets(int64_t n, int64_t buckets, int64_t max_distance);

// DeBERTa's signed log buckets of i - j, [n, n] int64 on the host: offsets within buckets / 2 kept,
// longer ones mapped to buckets / 2 + ceil(log(|i - j| / (buckets / 2)) / log((max_position - 1) /
// (buckets / 2)) * (buckets / 2 - 1)) with their sign; the plain offsets when buckets <= 0.
at::Tensor log_bucket_positions(int64_t n, int64_t buckets, int64_t max_position);

}  // namespace attnscope
