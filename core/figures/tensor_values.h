#pragma once
// A tensor's values as the flat float list a figure panel holds (row-major, on the host).
#include <ATen/ATen.h>

#include <vector>

namespace attnscope {

inline std::vector<float> tensor_values(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kCPU, at::kFloat).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

}  // namespace attnscope
