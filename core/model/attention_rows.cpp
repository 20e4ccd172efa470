#include "model/attention_rows.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "model/run_sums.h"

namespace attnscope {
namespace {

// `maker` (a Transformer or its AttentionScores) lays out one head's or layer's queries and keys
// (recompute_inputs) and makes rows from them; the last layout is kept for the next block.
template <class Maker, class Make>
AttentionRows cached_rows(const Maker& maker, const TextCaptures& captures, Make make) {
  struct Cached {
    int64_t layer = -1, head = -1;
    AttentionScores::RecomputeInputs inputs;
  };
  auto cached = std::make_shared<Cached>();
  return [&maker, &captures, cached, make](int64_t layer, int64_t head, RowSpan rows) {
    if (cached->layer != layer || cached->head != head) {
      const auto heads = [&](const at::Tensor& t, int64_t h) { return head < 0 ? t[layer] : t[layer].narrow(0, h, 1); };
      cached->layer = -1;  // until the inputs are made (they may throw)
      cached->inputs =
          maker.recompute_inputs(heads(captures.queries, head), heads(captures.keys, captures.key_head(head)), layer,
                                 std::max<int64_t>(head, 0));
      cached->layer = layer;
      cached->head = head;
    }
    return make(cached->inputs, rows).to(at::kCPU, at::kFloat).contiguous();
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

}  // namespace

AttentionRows recomputed_attention_rows(const Transformer& model, const TextCaptures& captures) {
  if (captures.pieces) return grouped_rows(recomputed_attention_rows(model, *captures.pieces), captures.first_pieces);
  return cached_rows(model, captures, [&model](const Transformer::RecomputeInputs& inputs, RowSpan rows) {
    return model.recompute_attention(inputs, rows);
  });
}

AttentionRows recomputed_attention_rows(const AttentionScores& scores, const TextCaptures& captures) {
  if (captures.pieces) return grouped_rows(recomputed_attention_rows(scores, *captures.pieces), captures.first_pieces);
  return cached_rows(scores, captures, [&scores](const AttentionScores::RecomputeInputs& inputs, RowSpan rows) {
    return scores.recompute(inputs, rows);
  });
}

}  // namespace attnscope
