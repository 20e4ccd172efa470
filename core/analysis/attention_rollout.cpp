#include "analysis/attention_rollout.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <string>

#include "base/byte_size.h"
#include "base/error.h"
#include "model/mapped_tensor.h"
#include "model/reproducible_products.h"

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

namespace {

// Rows of Ahat_l: M_l + I normalised row by row, as attention_rollout makes them.
at::Tensor residual_rows(const LayerMapRows& maps, int64_t layer, RowSpan rows) {
  // A copy: the rows handed out may be a view of maps someone keeps.
  at::Tensor m = maps(layer, rows).to(at::kFloat, /*non_blocking=*/false, /*copy=*/true).contiguous();
  m.diagonal(rows.first).add_(1.0f);  // row r of the block is row first + r of the map
  return m / m.sum(-1, true);
}

}  // namespace

at::Tensor rollout_in_blocks(const LayerMapRows& maps, int64_t last, int64_t n, int64_t block_rows,
                             const RolloutOfLayer& each_layer) {
  if (last < 0 || n < 1) throw Error("rollout needs a layer and at least one token");
  c10::InferenceMode guard;
  const std::vector<std::pair<int64_t, int64_t>> blocks = row_blocks(n, block_rows);
  at::Tensor rollout = mapped_empty({n, n}), next;  // returned when freed (mapped_tensor.h)
  for (const auto& [first, count] : blocks)
    rollout.narrow(0, first, count).copy_(residual_rows(maps, 0, {first, count}));
  if (each_layer) each_layer(0, rollout);
  for (int64_t l = 1; l <= last; ++l) {
    if (!next.defined()) next = mapped_empty({n, n});
    for (const auto& [first, count] : blocks) {
      at::Tensor slot = next.narrow(0, first, count);
      at::matmul_out(slot, residual_rows(maps, l, {first, count}), rollout);
    }
    std::swap(rollout, next);
    if (each_layer) each_layer(l, rollout);
  }
  return rollout;
}

LayerMapRows mean_attention_rows(const AttentionRows& rows, const KeepGoing& keep_going) {
  return [rows, keep_going](int64_t layer, RowSpan span) {
    stop_if_stale(keep_going);
    return rows(layer, -1, span).mean(0);
  };
}

double rollout_in_blocks_bytes(int64_t n) {
  return 2.0 * static_cast<double>(n) * static_cast<double>(n) * sizeof(float);
}

void require_rollout_fits(int64_t n) {
  const double bytes = rollout_in_blocks_bytes(n);
  if (bytes <= kMostRolloutBytes) return;
  throw Error("the attention rollout of a text of " + std::to_string(n) + " tokens holds two " + std::to_string(n) +
              " x " + std::to_string(n) + " matrices (" + byte_size(bytes) +
              "): ask for it on a shorter text (--max-len)");
}

}  // namespace attnscope
