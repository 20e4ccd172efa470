#pragma once
// A long text's attention maps handed out a block of query rows at a time, recomputed from the
// queries and keys it keeps (model/capture_plan.h). Views and figures that walk every map (the
// overview's thumbnails) read them so, and never hold one layer's n x n maps whole.
#include <ATen/core/Tensor.h>

#include <functional>

#include "model/captures.h"
#include "model/transformer.h"

namespace attnscope {

// [heads, rows, n] float32 on the host: rows `rows` of head `head`'s map of layer `layer` (heads 1),
// or of every head's (head -1, heads H).
using AttentionRows = std::function<at::Tensor(int64_t layer, int64_t head, RowSpan rows)>;

// Recomputed by `model` from captures.queries and captures.keys, equal to the bit to the maps a
// forward keeping them would have made (Transformer::recompute_attention). Both must outlive the
// result. It keeps the last head's (or layer's) queries and keys as the products read them, so walking a layer
// block by block lays them out once; not to be shared between threads. For a long text carried
// over to words (captures.pieces) the rows are the word maps' (analysis/word_level.h's W_ab), each
// block made from its pieces' rows, equal to the maps of words made from kept maps within rounding.
AttentionRows recomputed_attention_rows(const Transformer& model, const TextCaptures& captures);
// The same without the model's weights (a result file's: AttentionScores made from its
// configuration), for every family but DeBERTa and MPNet, whose scores need weights.
AttentionRows recomputed_attention_rows(const AttentionScores& scores, const TextCaptures& captures);

}  // namespace attnscope
