#pragma once
// The norm-based view of attention (Kobayashi et al. 2020): a head's attention to token j weighted
// by the size of what the head moves from j, f_h(x_j) = v_j W_O^h (the value vector through the
// head's slice of the attention output projection; captured by the forward with the lenses).
//   head h:     N^h_ij = A^h_ij ||f_h(x_j)||
//   the layer:  N_ij = ||sum_h A^h_ij f_h(x_j)|| = sqrt(sum_{h,h'} A^h_ij A^h'_ij <f_h(x_j), f_h'(x_j)>)
// The layer's map is taken from the per-token Gram matrix of the heads' vectors, so no n x n x D
// tensor is ever made. Computed where the tensors live.
#include <ATen/core/Tensor.h>

namespace attnscope {

// attention [..., H, n, n], value_norms [..., H, n] -> [..., H, n, n]; or rows of the maps,
// [..., H, rows, n] -> [..., H, rows, n] (a long text's, made a block at a time)
at::Tensor norm_based_attention(const at::Tensor& attention, const at::Tensor& value_norms);

// What the layer map's rows are: `causal`, a decoder's (no row weighs a key after its own, so those
// columns are 0 and the CPU does not compute them); `first_row`, the position of the first of them
// (rows of a long text's maps, made a block at a time; their keys counted from the first).
struct LayerMapShape {
  bool causal = false;
  int64_t first_row = 0;
};

// attention [L, H, n, n], value_gram [L, n, H, H] -> [L, n, n]; likewise rows, [L, H, rows, n] -> [L, rows, n]
at::Tensor layer_norm_based_attention(const at::Tensor& attention, const at::Tensor& value_gram,
                                      const LayerMapShape& shape = {});

}  // namespace attnscope
