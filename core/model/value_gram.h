#pragma once
// What the norm-based lens needs of one layer (Kobayashi et al. 2020): the per-token Gram matrices
// of the vectors the heads move, G_j[h, h'] = f_h(x_j) . f_h'(x_j) with f_h(x_j) = v_j^h W_O^h,
// and their norms ||f_h(x_j)|| = sqrt(G_j[h, h]).
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace attnscope {

// The CPU makes the matrices of a slice of this many tokens at a time, slices at fixed positions
// (0, 128, ...): a whole slice's are the same bits whatever the tokens after it, so a continued
// forward takes those of the run before (ForwardPrefix::value_gram).
inline constexpr int64_t kValueGramSlice = 128;

// output_product: W_O^T W_O of the layer, [D, D] (symmetric; its block (h, h') is
// W_O^h W_O^h'^T, so G_j[h, h'] = v_j^h (W_O^T W_O)[h, h'] v_j^h'^T needs the values only);
// values: [B, H, d, n] (a view of the projection as the forward computed it);
// gram: [B, n, H, H] and norms: [B, H, n], written in place from token `from` on (a multiple of
// kValueGramSlice); the tokens before it are left as they are.
void value_gram_into(const at::Tensor& output_product, const at::Tensor& values, at::Tensor gram, at::Tensor norms,
                     int64_t from = 0);

}  // namespace attnscope
