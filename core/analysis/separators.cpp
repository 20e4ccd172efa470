#include "analysis/separators.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <limits>

#include "base/error.h"

namespace attnscope {

std::vector<Separators> find_separators(const at::Tensor& attention_maps, double tau_sep) {
  return separators_from_columns(attention_maps.sum(1), tau_sep);
}

std::vector<Separators> separators_from_columns(const at::Tensor& columns, double tau_sep,
                                                const std::vector<bool>& eligible) {
  const at::Tensor column = columns.to(at::kFloat);  // [K, n]
  const int64_t n = column.size(1);
  at::Tensor top = column.amax(1, true);
  const bool all_eligible = std::find(eligible.begin(), eligible.end(), false) == eligible.end();
  if (!all_eligible) {
    if (static_cast<int64_t>(eligible.size()) != n) throw Error("the eligible positions do not match the columns");
    std::vector<uint8_t> flags(eligible.begin(), eligible.end());
    const at::Tensor allowed = at::from_blob(flags.data(), {1, n}, at::kByte).to(column.device(), at::kBool);
    top = at::where(allowed, column, 0.0f).amax(1, true);
  }
  const at::Tensor share = (column / top).cpu().contiguous();
  const int64_t maps = share.size(0);
  std::vector<Separators> out(static_cast<size_t>(maps));
  for (int64_t k = 0; k < maps; ++k) {
    const float* a = share[k].data_ptr<float>();
    Separators& s = out[static_cast<size_t>(k)];
    s.column_share.assign(a, a + n);
    for (int64_t j = 0; j < n; ++j)
      if (a[j] >= tau_sep && (all_eligible || eligible[static_cast<size_t>(j)]))
        s.positions.push_back(static_cast<int>(j));
  }
  return out;
}

std::vector<Segment> segments_from(const std::vector<int>& separators, int n) {
  std::vector<Segment> out;
  int start = 0;
  for (int p : separators) {
    out.push_back({start, p});
    start = p + 1;
  }
  if (start <= n - 1) out.push_back({start, n - 1});
  return out;
}

at::Tensor separator_mask(const std::vector<int>& separators, int n) {
  at::Tensor marked = at::zeros({n}, at::kBool);
  for (int p : separators) marked[p] = true;
  return marked.unsqueeze(1).logical_or(marked.unsqueeze(0));
}

at::Tensor block_average(const at::Tensor& similarity, const std::vector<Segment>& segments) {
  const at::Tensor s = similarity.to(at::kCPU, at::kDouble);
  const int64_t n = s.size(0);
  at::Tensor out = at::full({n, n}, std::numeric_limits<double>::quiet_NaN(), at::kDouble);
  for (const Segment& a : segments)
    for (const Segment& b : segments) {
      const int64_t rows = a.last - a.first + 1, cols = b.last - b.first + 1;
      const int64_t shared = std::max<int64_t>(0, std::min(a.last, b.last) - std::max(a.first, b.first) + 1);
      const int64_t count = rows * cols - shared;  // the diagonal elements i == j are left out
      if (count == 0) continue;
      const double diagonal_sum =
          shared ? s.diagonal().narrow(0, std::max(a.first, b.first), shared).sum().item<double>() : 0.0;
      const double sum = s.narrow(0, a.first, rows).narrow(1, b.first, cols).sum().item<double>() - diagonal_sum;
      out.narrow(0, a.first, rows).narrow(1, b.first, cols).fill_(sum / static_cast<double>(count));
    }
  return out.to(at::kFloat);
}

}  // namespace attnscope
