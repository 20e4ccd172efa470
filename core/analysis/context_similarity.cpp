#include "analysis/context_similarity.h"

#include <ATen/ATen.h>

namespace attnscope {

ContextSimilarity context_similarity(const at::Tensor& head_outputs) {
  at::Tensor s = at::matmul(head_outputs, head_outputs.transpose(-1, -2));
  at::Tensor norms = s.diagonal(0, -2, -1).clamp_min(0).sqrt();
  s.diagonal(0, -2, -1).zero_();
  return {s, norms};
}

at::Tensor cosine_from_similarity(const at::Tensor& similarity, const at::Tensor& norms) {
  const at::Tensor outer = norms.unsqueeze(-1) * norms.unsqueeze(-2);
  return at::where(outer > 0, similarity / outer, at::zeros_like(similarity));
}

}  // namespace attnscope
