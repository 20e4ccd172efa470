#include "model/relative_position_bias.h"

#include <ATen/ATen.h>

#include <cmath>

namespace attnscope {

at::Tensor relative_position_buckets(int64_t n, int64_t buckets, int64_t max_distance) {
  const at::Tensor position = at::arange(n, at::kLong);
  const at::Tensor ahead = position.unsqueeze(0) - position.unsqueeze(1);  // j - i
  const int64_t half = buckets / 2, exact = half / 2;
  // Keys after the query take the upper half; the distance either way picks the bucket within it.
  const at::Tensor side = (ahead > 0).to(at::kLong) * half;
  const at::Tensor distance = ahead.abs();
  // In float32, truncated, as the reference computes it (log of 0 for the exact ones is discarded).
  const at::Tensor far = exact + (at::log(distance.to(at::kFloat) / static_cast<double>(exact)) /
                                  std::log(static_cast<double>(max_distance) / static_cast<double>(exact)) *
                                  static_cast<double>(half - exact))
                                     .to(at::kLong);
  return side + at::where(distance < exact, distance, at::clamp_max(far, half - 1));
}

}  // namespace attnscope
