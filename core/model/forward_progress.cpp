#include "model/forward_progress.h"

#include <ATen/core/Tensor.h>

namespace attnscope {

AttentionBlockSink with_forward_progress(AttentionBlockSink sink, ProgressReport progress, int64_t layers) {
  if (!progress) return sink;
  return [sink = std::move(sink), progress = std::move(progress), layers](int64_t layer, RowSpan rows,
                                                                          const at::Tensor& attention) {
    if (sink) sink(layer, rows, attention);
    const double n = static_cast<double>(attention.size(3)), done = static_cast<double>(rows.first + attention.size(2));
    progress("model", (static_cast<double>(layer) + done / n) / static_cast<double>(std::max<int64_t>(layers, 1)));
  };
}

}  // namespace attnscope
