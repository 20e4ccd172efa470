#include "support/nested_tensor.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace attnscope::test {

at::Tensor nested_tensor(const nlohmann::json& nested) {
  std::vector<int64_t> shape;
  for (const nlohmann::json* level = &nested; level->is_array() && !level->empty(); level = &(*level)[0])
    shape.push_back(static_cast<int64_t>(level->size()));
  std::vector<float> flat;
  const std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& j) {
    if (j.is_array())
      for (const auto& x : j) walk(x);
    else
      flat.push_back(j.get<float>());
  };
  walk(nested);
  return at::tensor(flat).reshape(shape);
}

std::string test_name(std::string model) {
  std::replace(model.begin(), model.end(), '-', '_');
  return model;
}

}  // namespace attnscope::test
