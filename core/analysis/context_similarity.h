#pragma once
// Context similarity of a head's output vectors: S = C C^T (diagonal set to 0), the vector norms
// ||c_i|| = sqrt(S_ii), and the cosine variant S_ij / (||c_i|| ||c_j||) (diagonal also 0).
#include <ATen/core/Tensor.h>

namespace attnscope {

struct ContextSimilarity {
  at::Tensor similarity;  // [..., n, n]
  at::Tensor norms;       // [..., n]
  at::Tensor cosine;      // [..., n, n]; 0 where a vector has norm 0
};

// head_outputs: [..., n, d], any leading dimensions (e.g. all layers and heads at once), on any device.
ContextSimilarity context_similarity(const at::Tensor& head_outputs);

}  // namespace attnscope
