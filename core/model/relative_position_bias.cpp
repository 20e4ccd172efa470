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

at::Tensor log_bucket_positions(int64_t n, int64_t buckets, int64_t max_position) {
  const at::Tensor position = at::arange(n, at::kLong);
  const at::Tensor offset = position.unsqueeze(1) - position.unsqueeze(0);  // i - j
  if (buckets <= 0) return offset;
  const int64_t mid = buckets / 2;
  // In float32, as the reference computes it; the offsets near 0 are replaced before the log.
  const at::Tensor near = (offset < mid).logical_and(offset > -mid);
  const at::Tensor distance = at::where(near, at::full_like(offset, mid - 1), offset.abs()).to(at::kFloat);
  const at::Tensor denominator = at::log(at::scalar_tensor(static_cast<double>(max_position - 1) / mid, at::kFloat));
  const at::Tensor far = at::ceil(at::log(distance / static_cast<double>(mid)) / denominator * (mid - 1)) + mid;
  return at::where(distance <= mid, offset.to(at::kFloat), far * offset.sign().to(at::kFloat)).to(at::kLong);
}

}  // namespace attnscope
