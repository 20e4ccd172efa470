#include "analysis/context_similarity.h"

#include <ATen/ATen.h>

namespace attnscope {

ContextSimilarity context_similarity(const at::Tensor& head_outputs) {
  ContextSimilarity out;
  at::Tensor s = at::matmul(head_outputs, head_outputs.transpose(-1, -2));
  out.norms = s.diagonal(0, -2, -1).clamp_min(0).sqrt();
  const at::Tensor outer = out.norms.unsqueeze(-1) * out.norms.unsqueeze(-2);
  out.cosine = at::where(outer > 0, s / outer, at::zeros_like(s));
  out.cosine.diagonal(0, -2, -1).zero_();
  s.diagonal(0, -2, -1).zero_();
  out.similarity = s;
  return out;
}

}  // namespace attnscope
