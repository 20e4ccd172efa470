#include "model/attention_block.h"

#include <ATen/ATen.h>

namespace attnscope {

at::Tensor AttentionBlock::whole() const { return over({0, n}); }

at::Tensor AttentionBlock::over(KeySpan over) const {
  if (keys.first == over.first && keys.count == over.count) return maps;
  at::Tensor out = at::zeros({maps.size(0), maps.size(1), maps.size(2), over.count}, maps.options());
  out.narrow(3, keys.first - over.first, keys.count).copy_(maps);
  return out;
}

}  // namespace attnscope
