#include "model/attention_rows.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <memory>

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

}  // namespace

AttentionRows recomputed_attention_rows(const Transformer& model, const TextCaptures& captures) {
  return cached_rows(model, captures, [&model](const Transformer::RecomputeInputs& inputs, RowSpan rows) {
    return model.recompute_attention(inputs, rows);
  });
}

AttentionRows recomputed_attention_rows(const AttentionScores& scores, const TextCaptures& captures) {
  return cached_rows(scores, captures, [&scores](const AttentionScores::RecomputeInputs& inputs, RowSpan rows) {
    return scores.recompute(inputs, rows);
  });
}

}  // namespace attnscope
