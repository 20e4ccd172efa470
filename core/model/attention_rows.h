#pragma once
// A long text's attention maps handed out a block of query rows at a time, recomputed from the
// queries and keys it keeps (model/capture_plan.h). Views and figures that walk every map (the
// overview's thumbnails) read them so, and never hold one layer's n x n maps whole.
#include <ATen/core/Tensor.h>

#include <functional>

#include "model/attention_block.h"
#include "model/captures.h"
#include "model/transformer.h"

namespace attnscope {

// [heads, rows, n] float32 on the host: rows `rows` of head `head`'s map of layer `layer` (heads 1),
// or of every head's (head -1, heads H).
using AttentionRows = std::function<at::Tensor(int64_t layer, int64_t head, RowSpan rows)>;
// The same rows over the keys they may see alone (model/attention_block.h; its maps [1, heads,
// rows, keys] float32 on the host, contiguous): a decoder's block holds no key after its last row,
// a sliding-window layer's a band, so what pools the maps (a head's map shown) reads no column of
// zeros. A long text carried over to words holds every word.
using AttentionBlockRows = std::function<AttentionBlock(int64_t layer, int64_t head, RowSpan rows)>;

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
// The same as blocks over the keys their rows may see, with the same bits there.
AttentionBlockRows recomputed_attention_blocks(const Transformer& model, const TextCaptures& captures);
AttentionBlockRows recomputed_attention_blocks(const AttentionScores& scores, const TextCaptures& captures);
// Rows over every key from blocks (AttentionBlock::whole), sharing the blocks' layout of the queries and keys.
AttentionRows whole_rows(AttentionBlockRows blocks);

}  // namespace attnscope
