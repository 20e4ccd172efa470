#include "analysis/attention_rollout.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include "base/error.h"

namespace attnscope {

at::Tensor attention_rollout(const at::Tensor& layer_maps) {
  if (layer_maps.dim() != 3 || layer_maps.size(1) != layer_maps.size(2))
    throw Error("rollout needs [layers, n, n] maps");
  c10::InferenceMode guard;
  const at::Tensor with_residual =
      layer_maps.to(at::kFloat) + at::eye(layer_maps.size(1), layer_maps.options().dtype(at::kFloat));
  const at::Tensor a_hat = with_residual / with_residual.sum(-1, true);
  at::Tensor out = at::empty_like(a_hat);
  out[0].copy_(a_hat[0]);
  for (int64_t l = 1; l < a_hat.size(0); ++l) {
    at::Tensor slot = out[l];
    at::matmul_out(slot, a_hat[l], out[l - 1]);
  }
  return out;
}

}  // namespace attnscope
