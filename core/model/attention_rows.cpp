#include "model/attention_rows.h"

#include <ATen/ATen.h>

#include <memory>

namespace attnscope {

AttentionRows recomputed_attention_rows(const Transformer& model, const TextCaptures& captures) {
  struct Cached {
    int64_t layer = -1, head = -1;
    Transformer::RecomputeInputs inputs;
  };
  auto cached = std::make_shared<Cached>();
  return [&model, &captures, cached](int64_t layer, int64_t head, RowSpan rows) {
    if (cached->layer != layer || cached->head != head) {
      const auto heads = [&](const at::Tensor& t) { return head < 0 ? t[layer] : t[layer].narrow(0, head, 1); };
      cached->layer = -1;  // until the inputs are made (they may throw)
      cached->inputs = model.recompute_inputs(heads(captures.queries), heads(captures.keys), layer);
      cached->layer = layer;
      cached->head = head;
    }
    return model.recompute_attention(cached->inputs, rows).to(at::kCPU, at::kFloat).contiguous();
  };
}

}  // namespace attnscope
