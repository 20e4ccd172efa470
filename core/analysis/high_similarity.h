#pragma once
// High-similarity elements (METHOD.md): S_hat = S / max_{i != j} S_ij over the tokens that take
// part; B_ij = 1 where S_hat_ij >= tau; the pairs are the (i < j) with B_ij = 1. A head whose
// maximum is <= 0 has no high-similarity elements.
#include <ATen/core/Tensor.h>

#include <vector>

namespace attnscope {

struct TokenPair {
  int i = 0, j = 0;    // token positions, i < j
  float value = 0.0f;  // S_hat_ij
};

struct HighSimilarity {
  std::vector<float> scale;                    // per head: max_{i != j} S_ij (<= 0: no elements)
  std::vector<std::vector<TokenPair>> pairs;   // per head, ordered by (i, j)
};

// similarity: [K, n, n] with K heads, diagonal already 0; takes_part: [n] bool (false for tokens
// left out, such as special tokens when the user excludes them). Computed where the tensors live;
// only the pairs come back to the host.
HighSimilarity high_similarity(const at::Tensor& similarity, const at::Tensor& takes_part, double tau);

}  // namespace attnscope
