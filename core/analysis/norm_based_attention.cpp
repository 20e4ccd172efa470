#include "analysis/norm_based_attention.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "error.h"

namespace attnscope {
namespace {

// On the CPU, row by row: for a row i of layer l and every j, sum_h A^h_ij t_h[j] with
// t_h[j] = sum_{h' >= h} A^h'_ij G_j[h, h'] (off-diagonal terms counted twice, folded into the
// Gram matrices beforehand), vectorised along j. The tensor-operation form below makes many
// 12 x 12 products, about six times slower at 128 tokens.
at::Tensor layer_map_on_cpu(const at::Tensor& attention, const at::Tensor& value_gram) {
  const int64_t L = attention.size(0), H = attention.size(1), n = attention.size(2);
  const at::Tensor twice = at::full({H, H}, 2.0f).fill_diagonal_(1.0f).view({1, H, H, 1});
  const at::Tensor along_j = value_gram.permute({0, 2, 3, 1}).mul(twice).contiguous();  // [L, H, H, n]: G_j[h, h'] for every j
  at::Tensor out = at::empty({L, n, n}, at::kFloat);
  const float *a = attention.data_ptr<float>(), *g = along_j.data_ptr<float>();
  float* o = out.data_ptr<float>();
  at::parallel_for(0, L * n, 1, [&](int64_t first, int64_t last) {
    std::vector<float> sum(static_cast<size_t>(n)), inner(static_cast<size_t>(n));
    for (int64_t row = first; row < last; ++row) {
      const int64_t l = row / n, i = row % n;
      std::fill(sum.begin(), sum.end(), 0.0f);
      for (int64_t h = 0; h < H; ++h) {
        std::fill(inner.begin(), inner.end(), 0.0f);
        for (int64_t k = h; k < H; ++k) {
          const float* ak = a + ((l * H + k) * n + i) * n;
          const float* gk = g + ((l * H + h) * H + k) * n;
          for (int64_t j = 0; j < n; ++j) inner[static_cast<size_t>(j)] += ak[j] * gk[j];
        }
        const float* ah = a + ((l * H + h) * n + i) * n;
        for (int64_t j = 0; j < n; ++j) sum[static_cast<size_t>(j)] += ah[j] * inner[static_cast<size_t>(j)];
      }
      for (int64_t j = 0; j < n; ++j) o[row * n + j] = std::sqrt(std::max(sum[static_cast<size_t>(j)], 0.0f));
    }
  });
  return out;
}

}  // namespace

at::Tensor norm_based_attention(const at::Tensor& attention, const at::Tensor& value_norms) {
  if (!value_norms.defined()) throw Error("the norm-based lens needs the value vectors, which this run did not capture");
  if (attention.dim() < 3 || value_norms.sizes() != attention.sizes().slice(0, attention.dim() - 1))
    throw Error("the value norms do not match the attention maps");
  c10::InferenceMode guard;
  return attention.to(at::kFloat) * value_norms.to(attention.device(), at::kFloat).unsqueeze(-2);  // column j scaled by ||f(x_j)||
}

at::Tensor layer_norm_based_attention(const at::Tensor& attention, const at::Tensor& value_gram) {
  if (!value_gram.defined()) throw Error("the norm-based lens needs the value vectors, which this run did not capture");
  if (attention.dim() != 4 || value_gram.dim() != 4 || value_gram.size(0) != attention.size(0) || value_gram.size(1) != attention.size(3) ||
      value_gram.size(2) != attention.size(1) || value_gram.size(3) != attention.size(1))
    throw Error("the value Gram matrices do not match the attention maps");
  c10::InferenceMode guard;
  if (attention.is_cpu()) return layer_map_on_cpu(attention.to(at::kFloat).contiguous(), value_gram.to(at::kCPU, at::kFloat));
  const at::Tensor a = attention.to(at::kFloat).permute({0, 3, 2, 1});             // [L, j, i, h]
  const at::Tensor weighted = at::matmul(a, value_gram.to(a.device(), at::kFloat));  // [L, j, i, h']: sum_h A^h_ij G_j[h, h']
  return (weighted * a).sum(-1).clamp_min(0).sqrt().transpose(1, 2).contiguous();    // [L, i, j]
}

}  // namespace attnscope
