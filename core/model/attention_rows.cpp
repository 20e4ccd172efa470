#include "model/attention_rows.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "model/run_sums.h"

namespace attnscope {
namespace {

// `maker` (a Transformer or its AttentionScores) lays out one head's or layer's queries and keys
// (recompute_inputs) and its AttentionScores makes blocks from them; the last layout is kept for the
// next block.
template <class Maker>
AttentionBlockRows cached_blocks(const Maker& maker, const AttentionScores& scores, const TextCaptures& captures) {
  struct Cached {
    int64_t layer = -1, head = -1;
    AttentionScores::RecomputeInputs inputs;
  };
  auto cached = std::make_shared<Cached>();
  return [&maker, &scores, &captures, cached](int64_t layer, int64_t head, RowSpan rows) {
    if (cached->layer != layer || cached->head != head) {
      const auto heads = [&](const at::Tensor& t, int64_t h) { return head < 0 ? t[layer] : t[layer].narrow(0, h, 1); };
      cached->layer = -1;  // until the inputs are made (they may throw)
      cached->inputs =
          maker.recompute_inputs(heads(captures.queries, head), heads(captures.keys, captures.key_head(head)), layer,
                                 std::max<int64_t>(head, 0));
      cached->layer = layer;
      cached->head = head;
    }
    AttentionBlock block = scores.recompute_block(cached->inputs, rows);
    block.maps = block.maps.to(at::kCPU, at::kFloat).contiguous();
    return block;
  };
}

// Rows of the maps over groups of pieces (words): W_ab = (1 / |a|) sum_{i in a} sum_{j in b} A_ij,
// each block of word rows from the rows of its pieces. It keeps no n x n map either.
AttentionRows grouped_rows(AttentionRows pieces, const std::vector<int64_t>& first_pieces) {
  const auto words = static_cast<int64_t>(first_pieces.size()) - 1;
  const at::Tensor bounds = at::tensor(first_pieces, at::kLong);
  return [pieces = std::move(pieces), bounds, words](int64_t layer, int64_t head, RowSpan rows) {
    const int64_t count = rows.size(words);
    const at::Tensor own = bounds.narrow(0, rows.first, count + 1);  // the block's words' pieces
    const int64_t begin = own[0].item<int64_t>(), end = own[count].item<int64_t>();
    const at::Tensor by_columns = run_sums(pieces(layer, head, {begin, end - begin}), 2, bounds);  // [heads, p, W]
    const at::Tensor sizes = run_lengths(own).to(at::kFloat).view({1, count, 1});
    return (run_sums(by_columns, 1, own - begin) / sizes).contiguous();
  };
}

// Rows over every one of n keys as blocks that hold them all (a long text's words).
AttentionBlockRows every_key_blocks(AttentionRows rows, int64_t n) {
  return [rows = std::move(rows), n](int64_t layer, int64_t head, RowSpan asked) {
    const at::Tensor maps = rows(layer, head, asked);
    return AttentionBlock{maps.unsqueeze(0), {asked.first, maps.size(1)}, {0, n}, n};
  };
}

}  // namespace

AttentionBlockRows recomputed_attention_blocks(const Transformer& model, const TextCaptures& captures) {
  if (captures.pieces) return every_key_blocks(recomputed_attention_rows(model, captures), captures.length);
  return cached_blocks(model, model.attention_scores(), captures);
}

AttentionBlockRows recomputed_attention_blocks(const AttentionScores& scores, const TextCaptures& captures) {
  if (captures.pieces) return every_key_blocks(recomputed_attention_rows(scores, captures), captures.length);
  return cached_blocks(scores, scores, captures);
}

AttentionRows whole_rows(AttentionBlockRows blocks) {
  return [blocks = std::move(blocks)](int64_t layer, int64_t head, RowSpan rows) {
    return blocks(layer, head, rows).whole().squeeze(0).contiguous();
  };
}

AttentionRows recomputed_attention_rows(const Transformer& model, const TextCaptures& captures) {
  if (captures.pieces) return grouped_rows(recomputed_attention_rows(model, *captures.pieces), captures.first_pieces);
  return whole_rows(recomputed_attention_blocks(model, captures));
}

AttentionRows recomputed_attention_rows(const AttentionScores& scores, const TextCaptures& captures) {
  if (captures.pieces) return grouped_rows(recomputed_attention_rows(scores, *captures.pieces), captures.first_pieces);
  return whole_rows(recomputed_attention_blocks(scores, captures));
}

}  // namespace attnscope
