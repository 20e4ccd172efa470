#pragma once
// Attention rollout (Abnar and Zuidema 2020): how much each token's representation after layer l
// draws on each input token, following the attention through the layers and the residual
// connections:
//   R_0 = Ahat_0,  R_l = Ahat_l R_(l-1),  Ahat_l = normalise_rows(M_l + I)
// with M_l the mean of layer l's heads' attention maps (or, as an option, the layer's norm-based
// map). Every row of every R_l sums to 1 when the M_l are non-negative.
#include <ATen/core/Tensor.h>

namespace attnscope {

// layer_maps: [L, n, n] (M_0 .. M_(L-1)); returns [L, n, n], R_l for every layer, float32.
at::Tensor attention_rollout(const at::Tensor& layer_maps);

}  // namespace attnscope
