#include "analysis/norm_based_attention.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cmath>

#include "base/error.h"

namespace attnscope {
namespace {

// `width` columns j0 .. j0 + width of one row i of a layer's map: sum_h A^h_ij t_h[j] with
// t_h[j] = sum_{h' >= h} A^h'_ij G_j[h, h'] (off-diagonal terms counted twice, folded into the
// Gram matrices beforehand). A fixed width keeps both sums in vector registers: only the attention
// and the Gram matrices are read from memory. a: A^0_i (head h's row h * head_stride further on);
// g: G[0, 0] along j (the pair (h, h') (h * H + h') * n further on).
template <int width>
inline void layer_map_columns(const float* a, int64_t head_stride, const float* g, int64_t H, int64_t n, int64_t j0,
                              float* out) {
  float sum[width] = {};
  for (int64_t h = 0; h < H; ++h) {
    float inner[width] = {};
    for (int64_t k = h; k < H; ++k) {
      const float *ak = a + k * head_stride + j0, *gk = g + (h * H + k) * n + j0;
      for (int w = 0; w < width; ++w) inner[w] += ak[w] * gk[w];
    }
    const float* ah = a + h * head_stride + j0;
    for (int w = 0; w < width; ++w) sum[w] += ah[w] * inner[w];
  }
  for (int w = 0; w < width; ++w) out[j0 + w] = std::sqrt(std::max(sum[w], 0.0f));
}

constexpr int kWidth = 16;  // columns of a layer map's row computed at once

// Rows first .. last of the layer maps (row = l * n + i). On x86-64 also compiled for AVX2, chosen
// at run time where the processor has it: twice the vector width of the baseline.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
// The maps' rows may be a block of R of their n query rows (a long text's, made a block at a time):
// each row is computed alone, so a block's rows equal those of the whole map to the bit.
// A column no head weighs is 0 (each of its terms is 0 times a finite Gram entry): a causal map's
// blocks of columns after the one holding the row's own are written as 0 and not computed, about
// half of a decoder's map. The others are computed by the same width of loop as when every column
// is, so they keep their bits. (Finding the last weighed column from the weights themselves took
// longer than computing the columns it spared.)
void layer_map_rows(const float* a, const float* g, int64_t H, int64_t R, int64_t n, int64_t first, int64_t last,
                    const LayerMapShape& shape, float* o) {
  for (int64_t row = first; row < last; ++row) {
    const int64_t l = row / R, i = row % R;
    const float* a_row = a + (l * H * R + i) * n;
    const float* g_layer = g + l * H * H * n;
    float* out = o + row * n;
    const int64_t end = shape.causal ? std::min(n, (shape.first_row + i + kWidth) / kWidth * kWidth) : n;
    int64_t j0 = 0;
    for (; j0 + kWidth <= end; j0 += kWidth) layer_map_columns<kWidth>(a_row, R * n, g_layer, H, n, j0, out);
    if (end == n)
      for (; j0 < n; ++j0) layer_map_columns<1>(a_row, R * n, g_layer, H, n, j0, out);
    std::fill(out + end, out + n, 0.0f);
  }
}

// On the CPU, row by row (layer_map_rows). The tensor-operation form below makes many 12 x 12
// products, about six times slower at 128 tokens.
at::Tensor layer_map_on_cpu(const at::Tensor& attention, const at::Tensor& value_gram, const LayerMapShape& shape) {
  const int64_t L = attention.size(0), H = attention.size(1), R = attention.size(2), n = attention.size(3);
  const at::Tensor twice = at::full({H, H}, 2.0f).fill_diagonal_(1.0f).view({1, H, H, 1});
  const at::Tensor along_j =
      value_gram.permute({0, 2, 3, 1}).mul(twice).contiguous();  // [L, H, H, n]: G_j[h, h'] for every j
  at::Tensor out = at::empty({L, R, n}, at::kFloat);
  const float *a = attention.data_ptr<float>(), *g = along_j.data_ptr<float>();
  float* o = out.data_ptr<float>();
  at::parallel_for(0, L * R, 1,
                   [&](int64_t first, int64_t last) { layer_map_rows(a, g, H, R, n, first, last, shape, o); });
  return out;
}

}  // namespace

at::Tensor norm_based_attention(const at::Tensor& attention, const at::Tensor& value_norms) {
  if (!value_norms.defined())
    throw Error("the norm-based lens needs the value vectors, which this run did not capture");
  // [.., rows, n] maps (any rows of them) and [.., n] norms.
  if (attention.dim() < 3 || value_norms.dim() != attention.dim() - 1 ||
      value_norms.sizes().slice(0, value_norms.dim() - 1) != attention.sizes().slice(0, attention.dim() - 2) ||
      value_norms.size(-1) != attention.size(-1))
    throw Error("the value norms do not match the attention maps");
  c10::InferenceMode guard;
  return attention.to(at::kFloat) *
         value_norms.to(attention.device(), at::kFloat).unsqueeze(-2);  // column j scaled by ||f(x_j)||
}

at::Tensor layer_norm_based_attention(const at::Tensor& attention, const at::Tensor& value_gram,
                                      const LayerMapShape& shape) {
  if (!value_gram.defined()) throw Error("the norm-based lens needs the value vectors, which this run did not capture");
  if (attention.dim() != 4 || value_gram.dim() != 4 || value_gram.size(0) != attention.size(0) ||
      value_gram.size(1) != attention.size(3) || value_gram.size(2) != attention.size(1) ||
      value_gram.size(3) != attention.size(1))
    throw Error("the value Gram matrices do not match the attention maps");
  c10::InferenceMode guard;
  if (attention.is_cpu())
    return layer_map_on_cpu(attention.to(at::kFloat).contiguous(), value_gram.to(at::kCPU, at::kFloat), shape);
  const at::Tensor a = attention.to(at::kFloat).permute({0, 3, 2, 1});  // [L, j, i, h]
  const at::Tensor weighted =
      at::matmul(a, value_gram.to(a.device(), at::kFloat));  // [L, j, i, h']: sum_h A^h_ij G_j[h, h']
  return (weighted * a).sum(-1).clamp_min(0).sqrt().transpose(1, 2).contiguous();  // [L, i, j]
}

}  // namespace attnscope
