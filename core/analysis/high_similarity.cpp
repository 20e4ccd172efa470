#include "analysis/high_similarity.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <limits>

namespace attnscope {

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
      const float* row = host.data_ptr<float>() + k * n * n;
      const float threshold = static_cast<float>(tau) * top;  // S >= tau max S, i.e. S_hat >= tau
      auto& pairs = out.pairs[static_cast<size_t>(k)];
      for (int64_t i = 0; i < n; ++i, row += n) {
        if (!takes[i]) continue;
        for (int64_t j = i + 1; j < n; ++j)
          if (row[j] >= threshold && takes[j]) pairs.push_back({static_cast<int>(i), static_cast<int>(j), row[j] / top});
      }
    }
  });
  return out;
}

}  // namespace attnscope
