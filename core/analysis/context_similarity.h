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

// [K, rows, n]: rows [first, first + count) of every head's S = C C^T (head_outputs [K, n, d]), its
// diagonal 0: equal to the bit to those rows of context_similarity's (the same products: a block of
// at least 4 rows sums each element in the whole product's order: model/reproducible_products.h).
// `norms`, when given ([K, n]), takes those rows' ||c_i|| = sqrt(S_ii), as context_similarity's.
at::Tensor similarity_rows(const at::Tensor& head_outputs, int64_t first, int64_t count, at::Tensor* norms = nullptr);

// Cosine similarity from S and the norms (same leading dimensions); the diagonal is 0 like S's,
// and so is every entry of a vector of norm 0. Computed when a view asks for it, not for every head.
at::Tensor cosine_from_similarity(const at::Tensor& similarity, const at::Tensor& norms);
// The same for rows [first, first + rows) of S ([K, rows, n], from similarity_rows), with every
// token's norms [K, n]: equal to those rows of the whole cosine.
at::Tensor cosine_rows(const at::Tensor& similarity_rows, const at::Tensor& norms, int64_t first);

}  // namespace attnscope
