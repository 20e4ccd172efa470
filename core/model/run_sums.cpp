#include "model/run_sums.h"

#include <ATen/ATen.h>

namespace attnscope {

at::Tensor run_sums(const at::Tensor& t, int64_t dim, const at::Tensor& bounds) {
  const at::Tensor wide = t.to(at::kDouble);
  const at::Tensor prefix = at::cat({at::zeros_like(wide.narrow(dim, 0, 1)), wide.cumsum(dim)}, dim);
  const at::Tensor at_bounds = prefix.index_select(dim, bounds);
  const int64_t runs = bounds.size(0) - 1;
  return at_bounds.narrow(dim, 1, runs) - at_bounds.narrow(dim, 0, runs);
}

}  // namespace attnscope
