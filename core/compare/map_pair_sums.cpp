#include "compare/map_pair_sums.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cmath>

#include "base/error.h"

namespace attnscope {
namespace {

std::vector<double> to_vector(const at::Tensor& t) {
  const at::Tensor host = t.to(at::kCPU, at::kDouble).contiguous();
  return {host.data_ptr<double>(), host.data_ptr<double>() + host.numel()};
}

MapPairSums on_device(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor x = a.to(at::kDouble), y = b.to(at::kDouble), d = y - x;
  return {to_vector((x * y).sum(-1)), to_vector(x.square().sum(-1)), to_vector(y.square().sum(-1)),
          to_vector(d.abs().amax(-1)), to_vector(d.square().sum(-1))};
}

MapPairSums on_cpu(const at::Tensor& a, const at::Tensor& b) {
  const int64_t k = a.size(0), n = a.size(1);
  MapPairSums s{std::vector<double>(k), std::vector<double>(k), std::vector<double>(k), std::vector<double>(k),
                std::vector<double>(k)};
  const float *x = a.data_ptr<float>(), *y = b.data_ptr<float>();
  at::parallel_for(0, k, 1, [&](int64_t first, int64_t last) {
    for (int64_t m = first; m < last; ++m) {
      double dot = 0, xx = 0, yy = 0, dd = 0, top = 0;
      for (int64_t i = m * n; i < (m + 1) * n; ++i) {
        const double u = x[i], v = y[i], d = v - u;
        dot += u * v, xx += u * u, yy += v * v, dd += d * d;
        top = std::max(top, std::abs(d));
      }
      s.dot[m] = dot, s.norm_a[m] = xx, s.norm_b[m] = yy, s.difference_norm[m] = dd, s.max_difference[m] = top;
    }
  });
  return s;
}

}  // namespace

MapPairSums MapPairSums::zeros(size_t count) {
  const std::vector<double> none(count, 0.0);
  return {none, none, none, none, none};
}

void MapPairSums::add(size_t first, const MapPairSums& part) {
  if (first + part.dot.size() > dot.size()) throw Error("map sums added past the maps they sum");
  for (size_t k = 0; k < part.dot.size(); ++k) {
    dot[first + k] += part.dot[k], norm_a[first + k] += part.norm_a[k], norm_b[first + k] += part.norm_b[k];
    difference_norm[first + k] += part.difference_norm[k];
    max_difference[first + k] = std::max(max_difference[first + k], part.max_difference[k]);
  }
}

MapPairSums map_pair_sums(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes() || a.dim() < 1) throw Error("map sums need two stacks of maps of the same shape");
  c10::InferenceMode guard;
  const at::Tensor x = a.flatten(1), y = b.to(a.device()).flatten(1);
  if (!x.is_cpu()) return on_device(x, y);
  return on_cpu(x.to(at::kFloat).contiguous(), y.to(at::kFloat).contiguous());
}

}  // namespace attnscope
