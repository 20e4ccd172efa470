#include "model/forward_progress.h"

#include <ATen/core/Tensor.h>

namespace attnscope {

AttentionBlockSink with_forward_progress(AttentionBlockSink sink, ProgressReport progress, int64_t layers) {
  if (!progress) return sink;
  return [sink = std::move(sink), progress = std::move(progress), layers](int64_t layer, const AttentionBlock& block) {
    if (sink) sink(layer, block);
    const double n = static_cast<double>(block.n), done = static_cast<double>(block.rows.first + block.rows.count);
    progress("model", (static_cast<double>(layer) + done / n) / static_cast<double>(std::max<int64_t>(layers, 1)));
  };
}

}  // namespace attnscope
