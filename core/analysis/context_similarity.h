#pragma once
// Context similarity of a head's output vectors: S = C C^T (diagonal set to 0) and the vector
// norms ||c_i|| = sqrt(S_ii); the cosine variant S_ij / (||c_i|| ||c_j||) on demand.
#include <ATen/core/Tensor.h>

namespace attnscope {

struct ContextSimilarity {
  at::Tensor similarity;  // [..., n, n]
  at::Tensor norms;       // [..., n]
};

// head_outputs: [..., n, d], any leading dimensions (e.g. all layers and heads at once), on any device.
ContextSimilarity context_similarity(const at::Tensor& head_outputs);

// Cosine similarity from S and the norms (same leading dimensions); the diagonal is 0 like S's,
// and so is every entry of a vector of norm 0. Computed when a view asks for it, not for every head.
at::Tensor cosine_from_similarity(const at::Tensor& similarity, const at::Tensor& norms);

}  // namespace attnscope
