#pragma once
// The lenses' maps of one text (docs/lenses.md), made from its captures in this one place and read
// by the analysis (pairs and separators from a lens), the figures and the result files alike:
// the norm-based maps of Kobayashi et al. 2020 and attention rollout of Abnar and Zuidema 2020.
// Computed in float32 where the captures live. A norm-based map needs the lenses' captures
// (TextCaptures::value_norms, value_gram); without them the underlying function throws.
#include <ATen/core/Tensor.h>

#include "model/attention_block.h"
#include "model/captures.h"

namespace attnscope {

// N^h_ij = A^h_ij ||f_h(x_j)|| of every head: [L, H, n, n]; of one layer's heads: [H, n, n].
at::Tensor head_norm_maps(const TextCaptures& captures);
at::Tensor head_norm_maps(const TextCaptures& captures, int layer);

// The layers' own norm-based maps ||sum_h A^h_ij f_h(x_j)||, of `count` layers from `first`: [count, n, n].
at::Tensor layer_norm_maps(const TextCaptures& captures, int first, int count);

// A block of a long text's maps (model/attention_block.h) through the norm-based lens, over the
// keys the block holds (every other key's weight is 0 either way), with the bits of the whole
// maps' rows at those keys: its heads' maps [heads, rows, keys] (heads `first_head` on, as many as
// the block holds), or its layer's own map [rows, keys] (the block holding every head).
at::Tensor head_norm_rows(const AttentionBlock& block, const TextCaptures& captures, int layer, int first_head);
at::Tensor layer_norm_rows(const AttentionBlock& block, const TextCaptures& captures, int layer);

// Rollout after each of the first `layers` layers, R_0 .. R_(layers-1): [layers, n, n]; through
// each layer's mean attention, or (of_norm) through its norm-based layer map.
at::Tensor rollout_maps(const TextCaptures& captures, int layers, bool of_norm = false);

}  // namespace attnscope
