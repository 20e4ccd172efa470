#include "analysis/high_similarity.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <limits>

namespace attnscope {
namespace {

// The pairs (i < j) of one head's row-major [n, n] matrix at or above `threshold`. Dense heads
// have a quarter of their elements there, where a branch per element would mispredict often:
// one branch-free pass notes every column and advances over the ones kept, then the pairs are
// built in a vector of their exact size.
void collect_pairs(const float* s, int64_t n, const bool* takes, float top, float threshold, std::vector<TokenPair>& pairs) {
  thread_local std::vector<int32_t> columns;  // reused from head to head
  thread_local std::vector<size_t> row_start;
  columns.resize(static_cast<size_t>(n * n));
  row_start.resize(static_cast<size_t>(n + 1));
  size_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    row_start[static_cast<size_t>(i)] = count;
    if (!takes[i]) continue;
    const float* row = s + i * n;
    for (int64_t j = i + 1; j < n; ++j) {
      columns[count] = static_cast<int32_t>(j);
      count += static_cast<size_t>((row[j] >= threshold) & takes[j]);
    }
  }
  row_start[static_cast<size_t>(n)] = count;
  pairs.resize(count);
  TokenPair* out = pairs.data();
  for (int64_t i = 0; i < n; ++i) {
    const float* row = s + i * n;
    for (size_t p = row_start[static_cast<size_t>(i)]; p < row_start[static_cast<size_t>(i + 1)]; ++p)
      *out++ = {static_cast<int>(i), columns[p], row[columns[p]] / top};
  }
}

}  // namespace

HighSimilarity high_similarity(const at::Tensor& similarity, const at::Tensor& takes_part, double tau) {
  const int64_t heads = similarity.size(0), n = similarity.size(1);
  const at::Tensor s = similarity.to(at::kFloat);
  const at::Tensor part = takes_part.to(at::TensorOptions().dtype(at::kBool).device(s.device()));
  // The reduction runs where S lives; the pair lists are read from a host copy of S. With every
  // token taking part, the plain maximum is the off-diagonal one whenever that is positive (the
  // diagonal is 0); the exact, masked maximum is needed only for the other cases.
  at::Tensor scale;
  if (part.all().item<bool>()) scale = s.amax({1, 2});
  if (!scale.defined() || !(scale > 0).all().item<bool>()) {
    const at::Tensor allowed = part.unsqueeze(1).logical_and(part.unsqueeze(0)).logical_and(at::eye(n, part.options()).logical_not());
    scale = at::where(allowed, s, -std::numeric_limits<float>::infinity()).amax({1, 2});
  }
  scale = scale.cpu();
  const at::Tensor host = s.cpu().contiguous();
  const at::Tensor host_part = part.cpu().contiguous();

  HighSimilarity out;
  out.scale.assign(scale.data_ptr<float>(), scale.data_ptr<float>() + heads);
  out.pairs.resize(static_cast<size_t>(heads));
  const bool* takes = host_part.data_ptr<bool>();
  at::parallel_for(0, heads, 1, [&](int64_t first, int64_t last) {
    for (int64_t k = first; k < last; ++k) {
      const float top = out.scale[static_cast<size_t>(k)];
      if (!(top > 0)) continue;  // no positive off-diagonal similarity: no high-similarity elements
      // S >= tau max S, i.e. S_hat >= tau
      collect_pairs(host.data_ptr<float>() + k * n * n, n, takes, top, static_cast<float>(tau) * top, out.pairs[static_cast<size_t>(k)]);
    }
  });
  return out;
}

}  // namespace attnscope
