#include "analysis/context_similarity.h"

#include <ATen/ATen.h>

#include <cmath>

namespace attnscope {
namespace {

// The token norms sqrt(max(S_ii, 0)) from S's diagonal. On the CPU by std::sqrt (IEEE's, correctly
// rounded, on the calling thread), not by torch's sqrt, which calls MKL's vector math on two
// threads: under AddressSanitizer, beside another process, about one process in seventy had the
// second thread's half of its first call some 3e-4 off (found: a long text's norms, made first,
// missed the whole path's on the heads of a block's second half, S itself equal to the bit).
at::Tensor norms_from_diagonal(const at::Tensor& diagonal) {
  at::Tensor norms = diagonal.clamp_min(0).contiguous();  // a new tensor: the diagonal stays S's
  if (!norms.is_cpu() || norms.scalar_type() != at::kFloat) return norms.sqrt_();
  float* v = norms.data_ptr<float>();
  for (int64_t k = 0; k < norms.numel(); ++k) v[k] = std::sqrt(v[k]);
  return norms;
}

}  // namespace

ContextSimilarity context_similarity(const at::Tensor& head_outputs) {
  at::Tensor s = at::matmul(head_outputs, head_outputs.transpose(-1, -2));
  at::Tensor norms = norms_from_diagonal(s.diagonal(0, -2, -1));
  s.diagonal(0, -2, -1).zero_();
  return {s, norms};
}

at::Tensor similarity_rows(const at::Tensor& head_outputs, int64_t first, int64_t count, at::Tensor* norms) {
  at::Tensor s = at::matmul(head_outputs.narrow(1, first, count), head_outputs.transpose(-1, -2));
  at::Tensor diagonal = s.diagonal(first, -2, -1);
  if (norms) norms->narrow(1, first, count).copy_(norms_from_diagonal(diagonal));
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
