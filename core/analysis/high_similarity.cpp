#include "analysis/high_similarity.h"

#include <ATen/ATen.h>

#include <limits>

namespace attnscope {

HighSimilarity high_similarity(const at::Tensor& similarity, const at::Tensor& takes_part, double tau) {
  const int64_t heads = similarity.size(0), n = similarity.size(1);
  const auto options = at::TensorOptions().dtype(at::kBool).device(similarity.device());
  const at::Tensor part = takes_part.to(options);
  const at::Tensor allowed = part.unsqueeze(1).logical_and(part.unsqueeze(0)).logical_and(at::eye(n, options).logical_not());
  const at::Tensor s = similarity.to(at::kFloat);
  const at::Tensor scale = at::where(allowed, s, -std::numeric_limits<float>::infinity()).amax({1, 2});  // [K]
  const at::Tensor s_hat = s / scale.view({heads, 1, 1});
  const at::Tensor chosen = (s_hat >= tau).logical_and(allowed.triu(1)).logical_and((scale > 0).view({heads, 1, 1}));
  const at::Tensor where = chosen.nonzero().cpu();        // [M, 3]: head, i, j, in row-major order
  const at::Tensor values = s_hat.index({chosen}).cpu();  // same order

  HighSimilarity out;
  const at::Tensor host_scale = scale.cpu();
  out.scale.assign(host_scale.data_ptr<float>(), host_scale.data_ptr<float>() + heads);
  out.pairs.resize(static_cast<size_t>(heads));
  const auto w = where.accessor<int64_t, 2>();
  const float* v = values.data_ptr<float>();
  for (int64_t m = 0; m < where.size(0); ++m)
    out.pairs[static_cast<size_t>(w[m][0])].push_back({static_cast<int>(w[m][1]), static_cast<int>(w[m][2]), v[m]});
  return out;
}

}  // namespace attnscope
