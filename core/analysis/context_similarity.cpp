#include "analysis/context_similarity.h"

#include <ATen/ATen.h>

namespace attnscope {

ContextSimilarity context_similarity(const at::Tensor& head_outputs) {
  at::Tensor s = at::matmul(head_outputs, head_outputs.transpose(-1, -2));
  at::Tensor norms = s.diagonal(0, -2, -1).clamp_min(0).sqrt();
  s.diagonal(0, -2, -1).zero_();
  return {s, norms};
}

at::Tensor similarity_rows(const at::Tensor& head_outputs, int64_t first, int64_t count, at::Tensor* norms) {
  at::Tensor s = at::matmul(head_outputs.narrow(1, first, count), head_outputs.transpose(-1, -2));
  at::Tensor diagonal = s.diagonal(first, -2, -1);
  if (norms) norms->narrow(1, first, count).copy_(diagonal.clamp_min(0).sqrt());
  diagonal.zero_();
  return s;
}

at::Tensor cosine_from_similarity(const at::Tensor& similarity, const at::Tensor& norms) {
  const at::Tensor outer = norms.unsqueeze(-1) * norms.unsqueeze(-2);
  return at::where(outer > 0, similarity / outer, at::zeros_like(similarity));
}

at::Tensor cosine_rows(const at::Tensor& similarity_rows, const at::Tensor& norms, int64_t first) {
  const at::Tensor outer = norms.narrow(-1, first, similarity_rows.size(-2)).unsqueeze(-1) * norms.unsqueeze(-2);
  return at::where(outer > 0, similarity_rows / outer, at::zeros_like(similarity_rows));
}

}  // namespace attnscope
