#pragma once
// What a forward pass keeps: per layer and head the attention map A and the head outputs C = A V
// (before the heads are concatenated and projected), and the hidden states between layers.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "model/column_sums_before.h"

namespace attnscope {

// Which queries may attend to each key (METHOD.md, "Decoders"): in an encoder every query; in a
// decoder those at or after the key, and in a layer with a sliding window of w tokens only the w
// nearest of them (the key's own query among them).
struct AttentionVisibility {
  bool causal = false;
  std::vector<int64_t> windows;  // per layer: w, or 0 where a decoder layer sees every token before it
  // [L, n] float32 on `device`: how many of a text's n queries may attend to each key.
  at::Tensor visible_queries(int64_t layers, int64_t n, const at::Device& device) const;
};

// Column attention as METHOD.md's separators read it: the sums a_j = sum_i A_ij [.., L, H, n] of a
// text of n tokens as they are for an encoder (every query sees every key, so the mean would only
// scale them), divided by the queries that may attend to j for a decoder, so that an early
// column is not favoured for being seen by more queries.
at::Tensor column_means(const at::Tensor& column_sums, const AttentionVisibility& visibility);

// A padded batch, as the forward produced it, on the compute device.
struct BatchCaptures {
  std::vector<int64_t> lengths;          // real tokens of each text
  std::vector<at::Tensor> attention;     // per layer [B, H, n, n]; empty when not captured
  std::vector<at::Tensor> head_outputs;  // per layer [B, H, n, d]; empty when not captured
  // The storage the per-layer tensors above are slices of, [L, B, H, n, n] and [L, B, H, n, d]:
  // the forward writes every layer's maps in place, so one text's captures are a view, not a copy.
  at::Tensor all_attention, all_head_outputs;
  // With the lenses (forward's `lenses`): what each head moves from each token, f_h(x_j) = v_j W_O^h
  // (its value vector through the head's slice of the attention output projection; Kobayashi et
  // al. 2020), as its norms [L, B, H, n] and, per token, the Gram matrix of the heads' vectors
  // [L, B, n, H, H] (the layer's norm-based map needs no n x n x D tensor with it).
  at::Tensor all_value_norms, all_value_gram;
  // With the lenses too: every head's queries and keys [L, B, H, n, d] and [L, B, G, n, d] (bertviz's
  // neuron view; a group's shared keys once), as the scores use them (rotary positions applied,
  // before the 1 / sqrt(d) scale).
  at::Tensor all_queries, all_keys;
  // With KeptAttention::QueriesAndKeys (the maps not kept): each map's column sums over the
  // text's real query rows, [L, B, H, n] float32 (before column_means); all_queries and all_keys
  // are kept then too, and recompute any map.
  at::Tensor all_column_sums;
  // With ForwardOptions::keep_layer_inputs, for a decoder's long text: each layer's column sums
  // over the rows before a few of its blocks of rows (all_column_sums as they stood when each came),
  // as a continued forward reads them to make the blocks from one of them on alone
  // (ForwardPrefix::column_sums_before).
  ColumnSumsBefore column_sums_before;
  // With ForwardOptions::keep_layer_inputs, for a decoder whose continued forward reads them
  // (Transformer::continues_from_projections): every layer's keys (as the scores use them) and
  // values, [L, B, G, n, d] each; a long text's values alone (its keys are all_keys).
  at::Tensor all_layer_keys, all_layer_values;
  // L + 1 entries [B, n, D]: embeddings, then each layer (L where the last layer stopped at its
  // head outputs: each layer's input); with KeptAttention::QueriesAndKeys (a long text) the last
  // alone, unless ForwardOptions::keep_layer_inputs.
  std::vector<at::Tensor> hidden_states;
  // [B, D]: each text's last token after the last layer (and the final norm, where the family has
  // one); undefined where the last layer stopped at its head outputs everywhere.
  at::Tensor last_states;
  AttentionVisibility visibility;
};

// One text with its pads cut away. Built once, then only read (it crosses threads as
// std::shared_ptr<const TextCaptures>).
struct TextCaptures {
  int64_t num_layers = 0, num_heads = 0, length = 0, head_dim = 0, hidden_size = 0;
  at::Tensor attention;    // [L, H, n, n]; undefined for a long text (kept: column_sums, queries, keys)
  at::Tensor column_sums;  // [L, H, n] float32 sums over the rows; defined where attention is not
  // A decoder's long text's column sums before a few of its blocks of rows, each [L, H, r], where
  // kept to be continued from (BatchCaptures::column_sums_before).
  ColumnSumsBefore column_sums_before;
  at::Tensor head_outputs;  // [L, H, n, d]
  // [L + 1, n, D], or [L, n, D] (each layer's input) where the last layer stopped at its head
  // outputs and they were kept (CheckpointRun::layer_inputs); may be undefined (e.g. not saved in
  // a result file).
  at::Tensor hidden_states;
  at::Tensor value_norms;  // [L, H, n] ||f_h(x_j)||; undefined unless the lenses were captured
  at::Tensor value_gram;   // [L, n, H, H] <f_h(x_j), f_h'(x_j)>; likewise
  // [L, H, n, d] and [L, G, n, d]: a decoder with grouped queries has G key heads, each shared by
  // H / G query heads (key_head); undefined unless the lenses were captured or the text is long.
  at::Tensor queries, keys;
  // [L, G, n, d] each: a decoder's keys (as `keys`) and values of every layer, kept with its layer
  // inputs (CheckpointRun::layer_inputs) where a continued forward reads them instead of projecting
  // the earlier rows again (ForwardPrefix::keys); undefined otherwise, and the keys for a long text
  // (its `keys` are those).
  at::Tensor layer_keys, layer_values;
  at::Tensor last_state;  // [D] the last token after the last layer; undefined as last_states
  AttentionVisibility visibility;
  // A long text carried over to words (analysis/word_level.h), whose maps are made again from its
  // pieces' queries and keys: the pieces' captures (those alone, with their sizes and visibility),
  // and the first piece of each of the `length` words with one past the last at the end. Unset for
  // pieces, and for words of kept maps.
  std::shared_ptr<const TextCaptures> pieces;
  std::vector<int64_t> first_pieces;

  // Whether a map not kept can be made again: from queries and keys, or from its pieces'.
  bool remakes_maps() const { return !attention.defined() && (queries.defined() || pieces); }

  // The key head query head `head` reads: its group's.
  int64_t key_head(int64_t head) const { return head / (num_heads / keys.size(1)); }
};

// The captures of text `index` of the batch; `to_host` makes them contiguous CPU float32,
// otherwise they stay on the compute device in its precision. Without `hidden_states` they are
// left undefined (the analysis does not read them; copying them per text costs in corpus runs).
TextCaptures text_captures(const BatchCaptures& batch, size_t index, bool to_host, bool hidden_states = true);

// The attention maps of text `index` alone, [L, H, n, n], where the forward left them: a view of
// the batch's storage (contiguous for a batch of one unpadded text), no copy.
at::Tensor text_attention(const BatchCaptures& batch, size_t index);
// The head outputs of text `index` alone, [L, H, n, d], where the forward left them.
at::Tensor text_head_outputs(const BatchCaptures& batch, size_t index);

// [B, L, H, n] float32 on the compute device: the attention each position receives (column
// attention a_j, as column_means gives it), over each text's real rows only. Computed for the whole batch at once, so
// that a corpus run never copies a text's attention maps out of the batch.
at::Tensor column_attention(const BatchCaptures& batch);

// [B, n, 1] float32 on the compute device: 1 for the real rows of each text, 0 for its pads;
// undefined when no text of the batch is padded.
at::Tensor real_rows(const BatchCaptures& batch);
// The same for texts of these lengths padded to n, shaped [B, 1, n, 1] to weigh a [B, H, n, n] map's rows.
at::Tensor real_query_rows(const std::vector<int64_t>& lengths, int64_t n, const at::Device& device);

}  // namespace attnscope
