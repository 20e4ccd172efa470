#pragma once
// The entropy of each row of attention maps, -sum_j a_j log a_j (a zero adds nothing: 0 log 0 = 0),
// for the head roles' broad score (METHOD.md, "Head roles"), which reads every row of every map.
#include <ATen/ATen.h>

namespace attnscope {

// maps [..., keys] (any device, floating type) -> float64 [...] on the maps' device. Each term
// a log a is made in the maps' precision (float32 for half types; float64 maps' in float64) and the
// terms summed in float64: float32 terms put at most about 1e-7 of a row's entropy in it.
at::Tensor row_entropy(const at::Tensor& maps);

}  // namespace attnscope
