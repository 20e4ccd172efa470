#pragma once
// Attention rollout (Abnar and Zuidema 2020): how much each token's representation after layer l
// draws on each input token, following the attention through the layers and the residual
// connections:
//   R_0 = Ahat_0,  R_l = Ahat_l R_(l-1),  Ahat_l = normalise_rows(M_l + I)
// with M_l the mean of layer l's heads' attention maps (or, as an option, the layer's norm-based
// map). Every row of every R_l sums to 1 when the M_l are non-negative.
#include <ATen/core/Tensor.h>

#include <functional>

#include "base/progress.h"
#include "model/attention_rows.h"
#include "model/row_span.h"

namespace attnscope {

// layer_maps: [L, n, n] (M_0 .. M_(L-1)); returns [L, n, n], R_l for every layer, float32. Rows go
// in groups of 64, each normalised and multiplied over the columns where the group's rows hold a
// nonzero (a decoder's up to its last row, a sliding-window layer's its band), by the columns of
// R_(l-1) where those rows may hold one (a decoder's up to the group's last row;
// attention_rollout.cpp): within rounding of sums and products over every column.
at::Tensor attention_rollout(const at::Tensor& layer_maps);

// Rows of M_l over the keys they may see ([rows, keys.count]; every other key weighs exactly 0, and
// each row's own key is among them): a decoder's rows none after the last, a sliding-window layer's
// a band. keys {0, n}: every key.
struct LayerMapBlock {
  at::Tensor rows;
  KeySpan keys;
};
// Rows `rows` of M_l, handed out a block at a time (a long text's, made again).
using LayerMapRows = std::function<LayerMapBlock(int64_t layer, RowSpan rows)>;

// M_l's rows as the mean of a long text's heads' attention blocks made again (model/attention_rows.h),
// over the keys the blocks hold, asking `keep_going` before each block (false throws Cancelled):
// what a long text's rollout reads.
LayerMapRows mean_attention_rows(const AttentionBlockRows& blocks, const KeepGoing& keep_going = {});

// Handed each R_l, [n, n], as soon as it is made (l = 0 .. last): a caller that wants every
// layer's rollout (the overview) reads it there, as R_(l+1) is made in the other buffer next.
using RolloutOfLayer = std::function<void(int64_t layer, const at::Tensor& rollout)>;

// R_last alone, [n, n] float32, for a text whose layer maps are never whole: each R_l made a block
// of `block_rows` rows (rounded up to a multiple of 64) at a time from M_l's rows and R_(l-1), so
// two n x n matrices are held, not L. The same bits as attention_rollout(...)[last]
// (rollout_rows_into).
at::Tensor rollout_in_blocks(const LayerMapRows& maps, int64_t last, int64_t n, int64_t block_rows,
                             const RolloutOfLayer& each_layer = {});

// What rollout_in_blocks holds for n tokens (two n x n float matrices), and the most it may: past
// kMostRolloutBytes (a text of about 22,000 tokens) it is refused in one line naming the size.
double rollout_in_blocks_bytes(int64_t n);
inline constexpr double kMostRolloutBytes = 4e9;
void require_rollout_fits(int64_t n);

}  // namespace attnscope
