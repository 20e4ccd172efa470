#include "compare/linear_cka.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include "base/error.h"

namespace attnscope {
namespace {

// Every column centred over the tokens (dimension -2), in float32 at least.
at::Tensor centred(const at::Tensor& x) {
  const at::Tensor wide = x.to(at::promote_types(x.scalar_type(), at::kFloat));
  return wide - wide.mean(-2, true);
}

// [..., K, p, p] -> [..., K]: ||Xc^T Xc||_F of each representation, summed in float64.
at::Tensor self_norms(const at::Tensor& xc) {
  return at::matmul(xc.transpose(-1, -2), xc).to(at::kDouble).square().sum({-2, -1}).sqrt();
}

}  // namespace

at::Tensor cross_linear_cka(const at::Tensor& x, const at::Tensor& y) {
  if (x.dim() < 3 || x.dim() != y.dim())
    throw Error("CKA needs [..., K, tokens, features] tensors with the same leading dimensions");
  if (x.size(-2) != y.size(-2))
    throw Error("CKA needs the same tokens on both sides (" + std::to_string(x.size(-2)) + " and " +
                std::to_string(y.size(-2)) + ")");
  c10::InferenceMode guard;
  const at::Tensor xc = centred(x), yc = centred(y.to(x.device())).to(xc.scalar_type());
  const int64_t k1 = x.size(-3), p = x.size(-1), k2 = y.size(-3), q = y.size(-1), m = x.size(-2);
  // All representations side by side, [..., m, K p]: every Yc^T Xc block is one matrix product.
  const auto side_by_side = [m](const at::Tensor& c, int64_t k, int64_t width) {
    std::vector<int64_t> shape(c.sizes().begin(), c.sizes().end() - 3);
    shape.insert(shape.end(), {m, k * width});
    return c.transpose(-3, -2).reshape(shape);
  };
  const at::Tensor products = at::matmul(side_by_side(xc, k1, p).transpose(-1, -2), side_by_side(yc, k2, q));
  std::vector<int64_t> blocks(x.sizes().begin(), x.sizes().end() - 3);
  blocks.insert(blocks.end(), {k1, p, k2, q});
  // Squared and summed over the contiguous q first (cheap), then over p in float64: [..., K1, K2].
  const at::Tensor cross = products.reshape(blocks).square().sum(-1).to(at::kDouble).sum(-2);
  // 0 / 0 (a constant representation) is left NaN on purpose: no similarity is defined there.
  return cross / (self_norms(xc).unsqueeze(-1) * self_norms(yc).unsqueeze(-2));
}

at::Tensor paired_linear_cka(const at::Tensor& x, const at::Tensor& y) {
  if (x.dim() < 2 || x.dim() != y.dim() || x.sizes().slice(0, x.dim() - 1) != y.sizes().slice(0, y.dim() - 1))
    throw Error("paired CKA needs [..., tokens, features] tensors with the same tokens and leading dimensions");
  c10::InferenceMode guard;
  const at::Tensor xc = centred(x), yc = centred(y.to(x.device())).to(xc.scalar_type());
  const at::Tensor cross = at::matmul(yc.transpose(-1, -2), xc).square().sum(-1).to(at::kDouble).sum(-1);
  return cross / (self_norms(xc) * self_norms(yc));
}

double linear_cka(const at::Tensor& x, const at::Tensor& y) {
  if (x.dim() != 2 || y.dim() != 2) throw Error("CKA needs [tokens, features] matrices");
  return cross_linear_cka(x.unsqueeze(0), y.unsqueeze(0)).item<double>();
}

}  // namespace attnscope
