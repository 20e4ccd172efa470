#pragma once
// How a model turns one layer's queries and keys into its attention maps: the scale, Gemma 2's
// soft-capping, and the additive masks (a decoder's causal mask, the local layers' band, padding,
// MPNet's relative position bias). The forward makes its maps with it and a long text's maps are
// made again with it, by the model or from a result file without the model's weights (everything
// but MPNet's bias is in the configuration), so all of them are the same maps to the bit.
#include <ATen/core/Tensor.h>

#include <utility>

#include "model/attention_block.h"
#include "model/config.h"
#include "model/device.h"
#include "model/row_span.h"

namespace attnscope {

class AttentionScores {
 public:
  // relative_bias: MPNet's [buckets, H] bias by distance, or undefined.
  AttentionScores(ModelConfig config, ComputeDevice device, at::Tensor relative_bias = {});

  // The additive masks of a forward over n positions, for the query rows asked: the global layers'
  // (causal, padding, MPNet's relative bias; undefined when nothing is masked) and the local
  // layers' (undefined without any). `padding`: [B, 1, 1, n] or undefined.
  struct Masks {
    at::Tensor global, local;
  };
  // `keys`: the mask's columns for those keys alone.
  Masks masks(int64_t n, const at::Tensor& padding, RowSpan rows = {}, KeySpan keys = {}) const;
  // The queries scaled as the scores need them, as rows: [B * H, n, d] from q^T [B * H, d, n]; or
  // the rows asked alone, [B * H, rows, d] (a block's: the same values, a block's memory).
  at::Tensor scaled_query_rows(const at::Tensor& q_t, RowSpan rows = {}) const;
  // q k^T (soft-capped where the family does) plus the mask, for the query rows asked:
  // [B, H, rows, n] from scaled_query_rows (of every row or of those rows alone) and k^T
  // [B * H, d, n]; `mask` made for those rows.
  at::Tensor masked_scores(const at::Tensor& q_rows, const at::Tensor& k_t, const at::Tensor& mask, int64_t B,
                           RowSpan rows = {}) const;
  double lowest_value() const;  // the additive mask's value for a key left out, in the compute dtype
  // The maps of the query rows asked: the softmax over every key of masked_scores, with only the
  // keys the rows may see scored (visible_keys: a decoder's up to the block's last row, a local
  // layer's band; on the CPU widened to whole groups of the softmax's vector lanes, and to at least
  // one group, attention_scores.cpp: lane_aligned). The others take the mask's lowest value
  // unscored, which is all that adding the mask leaves of any score, and a product over enough keys
  // gives each score the same bits whatever keys stand beside it (the tests hold the whole path's
  // maps to these), so the maps are those of scoring every key, to the bit, for a fraction of the
  // product and of the mask. On the CPU the softmax itself runs over the keys scored, the other
  // keys 0, as the whole softmax leaves them (kSoftmaxLanes), and the block holds those keys alone;
  // elsewhere, or with padding, it holds every key. `padding` as for masks;
  // `first_head`: where the heads given begin (MPNet's bias differs by head). `made_mask`: this
  // layer's mask over every row and key (Masks::global or local) where it is made already: the
  // block's part is read from it, not made again (the same values: a mask is a function of
  // position; at 2,048 tokens Gemma 3's blocks' own masks took about 5% of its forward).
  AttentionBlock attention_block(const at::Tensor& q_rows, const at::Tensor& k_t, const at::Tensor& padding,
                                 bool local_layer, int64_t B, RowSpan rows, int64_t first_head = 0,
                                 const at::Tensor& made_mask = {}) const;

  // One text's maps of one layer again from the queries and keys its forward used (queries
  // [H, n, d], keys [H or G, n, d]: TextCaptures keeps a group's shared keys once, repeated here
  // for each of its query heads as the forward had them): laid out once as the scores read them
  // (at 8,192 tokens that copy is 50 MB a layer, as much as a block of rows takes to compute), then
  // any block of query rows from them, [H, rows, n].
  // `first_head`: where the heads given begin among the layer's (MPNet's bias differs by head).
  struct RecomputeInputs {
    at::Tensor query_rows, keys_t;  // [H, n, d] scaled, [H, d, n]
    int64_t layer = 0, first_head = 0;
  };
  RecomputeInputs recompute_inputs(const at::Tensor& queries, const at::Tensor& keys, int64_t layer,
                                   int64_t first_head = 0) const;
  at::Tensor recompute(const RecomputeInputs& inputs, RowSpan rows = {}) const;
  // The same rows over the keys they may see alone (attention_block's block, B = 1): what a view
  // pooling a long text's map reads, without spreading each block over every key.
  AttentionBlock recompute_block(const RecomputeInputs& inputs, RowSpan rows) const;
  // Those rows' columns `keys` alone, [H, rows, keys], each row's softmax taken over those keys:
  // with keys that hold every key the rows may see (visible_keys), the map's values there within
  // rounding, not to the bit (the sums run over fewer terms in another order), and zero outside.
  // For what needs the maps' values and not their bits (the head roles): a decoder's block costs
  // the keys up to its last row, a sliding-window layer's a band.
  at::Tensor recompute(const RecomputeInputs& inputs, RowSpan rows, KeySpan keys) const;
  // The keys the rows asked may see in `layer` of a text of n tokens: every one in an encoder's
  // global layer; up to the last row in a decoder's; in a local layer, those within its window.
  KeySpan visible_keys(int64_t layer, int64_t n, RowSpan rows) const;
  KeySpan visible_keys(int64_t n, RowSpan rows, bool local_layer) const;

  const ModelConfig& config() const { return config_; }
  const ComputeDevice& device() const { return device_; }

 private:
  static at::Tensor heads_of(const at::Tensor& mask, int64_t heads, int64_t first_head);
  // Masks::global for those rows and keys, and the one mask a layer of that kind adds (a global
  // layer's block makes no band: where some layers are local it cost a quarter of a global head's
  // map made again).
  at::Tensor global_mask(int64_t n, const at::Tensor& padding, RowSpan rows, KeySpan keys) const;
  at::Tensor layer_mask(int64_t n, const at::Tensor& padding, RowSpan rows, KeySpan keys, bool local_layer) const;
  at::Tensor band_mask(int64_t n, const at::Tensor& padding, RowSpan rows, KeySpan keys) const;
  at::Tensor causal_mask(int64_t n, const at::Tensor& padding, RowSpan rows, KeySpan keys) const;
  std::pair<at::Tensor, at::Tensor> row_and_key_positions(int64_t n, RowSpan rows, KeySpan keys) const;

  ModelConfig config_;
  ComputeDevice device_;
  at::Tensor relative_bias_;
};

}  // namespace attnscope
